// In embedded mode the server owns the PGlite directory; the CLI reaches it through this Unix
// socket (mode 0600, inside DATA_DIR) and runs the same operator operations.
import http from 'node:http';
import { chmodSync, rmSync } from 'node:fs';
import type { AppDeps } from '../../app/deps.js';
import { OPERATOR_OPERATIONS } from '../../app/operations.js';
import { runOperation } from '../../app/run-operation.js';
import { RETENTION_COMMAND, runRetention } from '../../app/partition-retention.js';
import { DomainError } from '../../domain/errors.js';
import { requestIdFrom } from '../http/request-id.js';

export interface OperatorReply {
  ok: boolean;
  output?: unknown;
  error?: { kind: string; code: string; message: string; issues: unknown[]; extra: Record<string, unknown> };
}

export async function runOperator(deps: AppDeps, opName: string, input: unknown): Promise<OperatorReply> {
  // Not an operation (no principal, no domain rule): partition DDL of the maintenance machinery.
  if (opName === RETENTION_COMMAND) {
    try {
      return { ok: true, output: await runRetention(deps, (input as { apply?: unknown } | null)?.apply === true) };
    } catch (err) {
      deps.log.error({ err }, 'retention failed');
      return { ok: false, error: { kind: 'internal', code: 'internal', message: (err as Error).message, issues: [], extra: {} } };
    }
  }
  const op = OPERATOR_OPERATIONS[opName];
  if (!op) return { ok: false, error: { kind: 'not_found', code: 'unknown_operation', message: `unknown operation ${opName}`, issues: [], extra: {} } };
  try {
    const { output } = await runOperation(deps, op, { surface: 'cli', requestId: requestIdFrom(undefined), input, log: deps.log, system: true });
    return { ok: true, output };
  } catch (err) {
    const e = err instanceof DomainError ? err : new DomainError('internal', 'internal error');
    return { ok: false, error: { kind: e.kind, code: e.code, message: e.message, issues: e.issues, extra: e.extra } };
  }
}

export async function startOperatorSocket(deps: AppDeps, socketPath: string): Promise<{ close(): Promise<void> }> {
  rmSync(socketPath, { force: true });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let reply: OperatorReply;
        try {
          const { op, input } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { op: string; input: unknown };
          reply = await runOperator(deps, op, input);
        } catch {
          reply = { ok: false, error: { kind: 'validation', code: 'malformed_json', message: 'bad operator request', issues: [], extra: {} } };
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        rmSync(socketPath, { force: true });
      }),
  };
}

export function callOperatorSocket(socketPath: string, op: string, input: unknown): Promise<OperatorReply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, path: '/run', method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OperatorReply);
        } catch (e) {
          reject(e as Error);
        }
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify({ op, input }));
  });
}
