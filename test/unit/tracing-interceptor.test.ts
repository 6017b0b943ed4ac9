// The Connect tracing interceptor logs an error raised outside the operation runner once (connect-es
// would answer it as `internal` and log nothing) and leaves the runner's ConnectErrors alone.
import { Code, ConnectError, createContextValues } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { REQUEST_ID } from '../../src/transports/connect/call.js';
import { tracingInterceptor } from '../../src/transports/connect/tracing-interceptor.js';

function capture() {
  const lines: Array<{ obj: Record<string, unknown>; msg?: string }> = [];
  const log = {
    info: () => undefined,
    warn: () => undefined,
    debug: () => undefined,
    error: (obj: object, msg?: string) => void lines.push({ obj: obj as Record<string, unknown>, msg }),
    child: () => log,
  };
  return { log, lines };
}

const request = () => {
  const contextValues = createContextValues();
  contextValues.set(REQUEST_ID, 'req-1');
  return { service: { typeName: 'fluxdesk.events.v1.EventService' }, method: { name: 'Publish' }, header: new Headers(), contextValues } as never;
};

describe('tracingInterceptor', () => {
  it('logs a non-Connect error once, with the procedure and request id, and rethrows it unchanged', async () => {
    const { log, lines } = capture();
    const boom = new TypeError('mapper bug');
    const call = tracingInterceptor(
      log,
      null,
    )(async () => {
      throw boom;
    });
    await expect(call(request())).rejects.toBe(boom);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.msg).toBe('unexpected error outside the operation runner');
    expect(lines[0]!.obj).toMatchObject({ err: boom, procedure: 'fluxdesk.events.v1.EventService/Publish', requestId: 'req-1' });
  });

  it('does not log a ConnectError (the runner logged it when it was unexpected)', async () => {
    const { log, lines } = capture();
    const refused = new ConnectError('bad', Code.InvalidArgument);
    const call = tracingInterceptor(
      log,
      null,
    )(async () => {
      throw refused;
    });
    await expect(call(request())).rejects.toBe(refused);
    expect(lines).toHaveLength(0);
  });

  it('passes the answer through', async () => {
    const { log } = capture();
    const answer = { message: 'ok' };
    const call = tracingInterceptor(log, null)(async () => answer as never);
    await expect(call(request())).resolves.toBe(answer);
  });
});
