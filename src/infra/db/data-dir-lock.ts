// PGlite does not lock its directory, so one process owns DATA_DIR at a time: `server.lock` holds
// the owner's pid and the path of its operator socket. The CLI talks to a live owner through
// that socket instead of opening the database a second time.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

export interface DataDirLock {
  file: string;
  socketPath: string;
  release(): void;
}

export interface LockOwner {
  pid: number;
  role: string;
  socketPath: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockFile(dataDir: string): string {
  return path.resolve(dataDir, 'server.lock');
}

export function socketPathFor(dataDir: string): string {
  return path.resolve(dataDir, 'operator.sock');
}

/** Owner of DATA_DIR if a live process holds it. */
export function readLockOwner(dataDir: string): LockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(lockFile(dataDir), 'utf8')) as LockOwner;
    return alive(owner.pid) ? owner : null;
  } catch {
    return null;
  }
}

export function acquireDataDirLock(dataDir: string, role: string): DataDirLock {
  mkdirSync(path.resolve(dataDir), { recursive: true });
  const file = lockFile(dataDir);
  const socketPath = socketPathFor(dataDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, role, socketPath }));
      closeSync(fd);
      let released = false;
      return {
        file,
        socketPath,
        release() {
          if (released) return;
          released = true;
          rmSync(file, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = readLockOwner(dataDir);
      if (owner) throw new Error(`DATA_DIR ${path.resolve(dataDir)} is in use by process ${owner.pid} (${owner.role})`);
      rmSync(file, { force: true }); // stale lock of a dead process
    }
  }
  throw new Error(`could not lock DATA_DIR ${path.resolve(dataDir)}`);
}
