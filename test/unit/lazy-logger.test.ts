// The lazy child logger (app/lazy-logger.ts) behind Fastify's per-request logger and each
// operation's logger: built only when a line at an enabled level is written, then with its bindings.
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { LazyChildLogger } from '../../src/app/lazy-logger.js';
import type { Logger } from '../../src/domain/context.js';

function capture(level: pino.Level) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  const logger = pino({ level }, sink);
  let children = 0;
  // The parent as Fastify or run-operation sees it, counting the children it is asked for.
  const root = {
    child: (bindings: pino.Bindings, options?: pino.ChildLoggerOptions) => {
      children++;
      return logger.child(bindings, options);
    },
    isLevelEnabled: (l: string) => logger.isLevelEnabled(l),
    level: logger.level,
  };
  return { root, lines, children: () => children };
}

describe('LazyChildLogger', () => {
  it('builds no child for lines below the parent level', () => {
    const { root, lines, children } = capture('warn');
    const log = new LazyChildLogger(root, { reqId: 'req_a' });
    log.info({ a: 1 }, 'not written');
    log.debug({}, 'not written');
    log.trace({}, 'not written');
    expect(log.isLevelEnabled('info')).toBe(false);
    expect(log.level).toBe('warn');
    expect(children()).toBe(0);
    expect(lines).toEqual([]);
  });

  it('builds the child once, on the first enabled line, with its bindings', () => {
    const { root, lines, children } = capture('warn');
    const log = new LazyChildLogger(root, { reqId: 'req_b' });
    log.warn({ n: 1 }, 'first');
    log.error({ n: 2 }, 'second');
    log.fatal({ n: 3 }, 'third');
    expect(children()).toBe(1);
    expect(lines.map((l) => [l.reqId, l.n, l.msg])).toEqual([
      ['req_b', 1, 'first'],
      ['req_b', 2, 'second'],
      ['req_b', 3, 'third'],
    ]);
  });

  it('keeps a level given in the child options (a route of its own level)', () => {
    const { root, lines } = capture('warn');
    const log = new LazyChildLogger(root, { reqId: 'req_c' }, { level: 'debug' });
    expect(log.level).toBe('debug');
    log.debug({}, 'route debug');
    expect(lines.map((l) => l.msg)).toEqual(['route debug']);
  });

  it('nests: a child of a lazy logger carries both bindings', () => {
    const { root, lines, children } = capture('info');
    const outer = new LazyChildLogger(root, { reqId: 'req_d' });
    const inner = new LazyChildLogger(outer, { op: 'events.publish' });
    inner.debug({}, 'below info');
    expect(children()).toBe(0);
    inner.info({}, 'written');
    expect(lines).toMatchObject([{ reqId: 'req_d', op: 'events.publish', msg: 'written' }]);
  });

  it('works over a parent with only the domain Logger methods (fatal is written as error)', () => {
    const seen: string[] = [];
    const plain: Logger = {
      info: (_o, m) => seen.push(`info ${m}`),
      warn: (_o, m) => seen.push(`warn ${m}`),
      error: (_o, m) => seen.push(`error ${m}`),
      debug: (_o, m) => seen.push(`debug ${m}`),
      child: () => plain,
    };
    const log = new LazyChildLogger(plain, { op: 'x' });
    log.info({}, 'a');
    log.fatal({}, 'b');
    log.trace({}, 'c');
    expect(seen).toEqual(['info a', 'error b']);
  });
});
