// gRPC server reflection (grpc.reflection.v1 and v1alpha): tools list the services
// and fetch their schema from the running service, no .proto files needed. `buf curl` drives it as a
// user would; a raw client checks each request kind and the error answers on both versions.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createFileRegistry, fromBinary, type DescService, type MessageInitShape } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport, Http2SessionManager } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v1 from '../../../gen/grpc/reflection/v1/reflection_pb.js';
import * as v1alpha from '../../../gen/grpc/reflection/v1alpha/reflection_pb.js';
import { EventService } from '../../../gen/fluxdesk/events/v1/events_pb.js';
import { Health, HealthCheckResponse_ServingStatus } from '../../../gen/grpc/health/v1/health_pb.js';
import { closeSessions, protoEvent, transportFor } from '../../helpers/connect.js';
import { newPersonalToken, startHarness, type Harness } from '../../helpers/harness.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
const sessions: Http2SessionManager[] = [];
const session = (): Http2SessionManager => {
  const s = new Http2SessionManager(h.grpcUrl);
  sessions.push(s);
  return s;
};
afterAll(async () => {
  closeSessions();
  for (const s of sessions) s.abort();
  await h?.close();
});

/** Every service generated into gen/ (all of them are served): what --list-services must print. */
async function generatedServices(): Promise<string[]> {
  const names = new Set<string>();
  const dir = path.join(ROOT, 'gen');
  for (const rel of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('_pb.ts'))) {
    const mod = (await import(path.join(dir, rel))) as Record<string, unknown>;
    for (const v of Object.values(mod)) if ((v as DescService | undefined)?.kind === 'service') names.add((v as DescService).typeName);
  }
  return [...names].sort();
}

async function bufCurl(args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)('npx', ['buf', 'curl', ...args], { cwd: ROOT, timeout: 60_000 });
  return stdout;
}

const grpcBase = () => `http://127.0.0.1:${new URL(h.grpcUrl).port}`;

describe('buf curl without --schema (reflection on the gRPC port)', () => {
  it('--list-services lists every service the listener serves, both reflection versions included', async () => {
    const out = await bufCurl(['--protocol', 'grpc', '--http2-prior-knowledge', '--list-services', grpcBase()]);
    const listed = out.trim().split('\n').sort();
    const expected = await generatedServices();
    expect(expected).toEqual(
      expect.arrayContaining([
        'fluxdesk.events.v1.EventService',
        'grpc.health.v1.Health',
        'grpc.reflection.v1.ServerReflection',
        'grpc.reflection.v1alpha.ServerReflection',
      ]),
    );
    expect(listed).toEqual(expected);
  }, 60_000);

  it('--list-methods names the methods of EventService from its descriptor', async () => {
    const out = await bufCurl(['--protocol', 'grpc', '--http2-prior-knowledge', '--list-methods', grpcBase()]);
    const methods = out
      .trim()
      .split('\n')
      .filter((l) => l.startsWith(`${EventService.typeName}/`))
      .sort();
    expect(methods).toEqual(EventService.methods.map((m) => `${EventService.typeName}/${m.name}`).sort());
  }, 60_000);

  it('Publish with a bearer token: the request is encoded from the reflected schema and the delivery comes back', async () => {
    const t = await newPersonalToken(h);
    const ev = protoEvent(h);
    const body = JSON.stringify({
      event: { spec_version: '2', event_id: ev.eventId, event_type: ev.eventType, severity: ev.severity, title: ev.title, occurred_at: ev.occurredAt },
    });
    const out = await bufCurl([
      '--protocol',
      'grpc',
      '--http2-prior-knowledge',
      '-H',
      `authorization: Bearer ${t.token}`,
      '-H',
      'x-request-id: reflect-1',
      '-d',
      body,
      `${grpcBase()}/fluxdesk.events.v1.EventService/Publish`,
    ]);
    const answer = JSON.parse(out);
    expect(answer).toMatchObject({
      created: true,
      delivery: { eventType: ev.eventType, title: ev.title, fireCount: 1, ok: true, requestId: 'reflect-1', recipientUserId: t.user.userId },
    });
    expect(answer.delivery.deliveryId).toMatch(/^[0-9a-f-]{36}$/);
  }, 60_000);
});

type Version = typeof v1 | typeof v1alpha;
type Req = MessageInitShape<typeof v1.ServerReflectionRequestSchema>;

/** Sends the requests on one stream (no bearer: reflection is anonymous) and returns the answers. */
async function reflect(version: Version, transport: Transport, requests: Req[]) {
  const client = createClient(version.ServerReflection as typeof v1.ServerReflection, transport);
  async function* send() {
    for (const r of requests) yield r;
  }
  const answers = [];
  for await (const a of client.serverReflectionInfo(send())) answers.push(a);
  return answers;
}

const filesOf = (a: v1.ServerReflectionResponse): FileDescriptorProto[] => {
  if (a.messageResponse.case !== 'fileDescriptorResponse')
    throw new Error(`expected files, got ${a.messageResponse.case}: ${JSON.stringify(a.messageResponse.value)}`);
  return a.messageResponse.value.fileDescriptorProto.map((b) => fromBinary(FileDescriptorProtoSchema, b));
};

describe.each([
  ['v1', v1],
  ['v1alpha', v1alpha],
] as const)('grpc.reflection.%s over gRPC (raw client)', (_name, version) => {
  it('answers each request kind in order on one stream', async () => {
    const answers = await reflect(version, transportFor(h, 'grpc'), [
      { host: 'h1', messageRequest: { case: 'listServices', value: '' } },
      { messageRequest: { case: 'fileContainingSymbol', value: 'fluxdesk.events.v1.EventService.Publish' } },
      { messageRequest: { case: 'fileByFilename', value: 'fluxdesk/events/v1/events.proto' } },
      { messageRequest: { case: 'fileContainingSymbol', value: 'grpc.health.v1.HealthCheckResponse.ServingStatus' } },
      { messageRequest: { case: 'fileContainingSymbol', value: 'fluxdesk.no.Such' } },
      { messageRequest: { case: 'fileByFilename', value: 'no/such.proto' } },
      { messageRequest: { case: 'fileContainingExtension', value: { containingType: 'fluxdesk.events.v1.InboundEvent', extensionNumber: 1000 } } },
      { messageRequest: { case: 'allExtensionNumbersOfType', value: 'fluxdesk.events.v1.InboundEvent' } },
      { messageRequest: { case: 'allExtensionNumbersOfType', value: 'fluxdesk.no.Such' } },
      { messageRequest: { case: undefined } },
    ]);
    expect(answers).toHaveLength(10);
    expect(answers.map((a) => a.originalRequest?.messageRequest.case)).toEqual([
      'listServices',
      'fileContainingSymbol',
      'fileByFilename',
      'fileContainingSymbol',
      'fileContainingSymbol',
      'fileByFilename',
      'fileContainingExtension',
      'allExtensionNumbersOfType',
      'allExtensionNumbersOfType',
      undefined,
    ]);
    expect(answers[0]!.validHost).toBe('h1');
    expect(answers[0]!.messageResponse).toMatchObject({ case: 'listServicesResponse' });
    const listed = (answers[0]!.messageResponse.value as v1.ListServiceResponse).service.map((s) => s.name).sort();
    expect(listed).toEqual(await generatedServices());

    // The declaring file first, then its transitive imports, WKT files included: enough to build a
    // registry that resolves the method and its types.
    for (const a of [answers[1]!, answers[2]!]) {
      const files = filesOf(a);
      expect(files[0]!.name).toBe('fluxdesk/events/v1/events.proto');
      const names = files.map((f) => f.name);
      expect(new Set(names).size).toBe(names.length);
      for (const f of files) for (const dep of f.dependency) expect(names).toContain(dep);
      const registry = createFileRegistry(files[0]!, (name) => files.find((f) => f.name === name));
      const publish = registry.getService('fluxdesk.events.v1.EventService')!.methods.find((m) => m.name === 'Publish')!;
      expect(publish.input.typeName).toBe('fluxdesk.events.v1.PublishRequest');
      expect(registry.getMessage('fluxdesk.events.v1.PublishRequest')!.field.event!.message!.typeName).toBe('fluxdesk.events.v1.InboundEvent');
    }
    // A nested enum resolves to its file.
    expect(filesOf(answers[3]!)[0]!.name).toBe('grpc/health/v1/health.proto');

    const errorOf = (i: number) => answers[i]!.messageResponse;
    expect(errorOf(4)).toMatchObject({ case: 'errorResponse', value: { errorCode: Code.NotFound } });
    expect(errorOf(5)).toMatchObject({ case: 'errorResponse', value: { errorCode: Code.NotFound } });
    expect(errorOf(6)).toMatchObject({ case: 'errorResponse', value: { errorCode: Code.NotFound } });
    expect(errorOf(7)).toMatchObject({ case: 'allExtensionNumbersResponse', value: { baseTypeName: 'fluxdesk.events.v1.InboundEvent', extensionNumber: [] } });
    expect(errorOf(8)).toMatchObject({ case: 'errorResponse', value: { errorCode: Code.NotFound } });
    expect(errorOf(9)).toMatchObject({ case: 'errorResponse', value: { errorCode: Code.InvalidArgument } });
  });
});

describe('every listed service is described completely', () => {
  it('its file and imports build a registry that resolves each method, without any local proto', async () => {
    const transport = transportFor(h, 'grpc');
    const [list] = await reflect(v1, transport, [{ messageRequest: { case: 'listServices', value: '' } }]);
    const names = (list!.messageResponse.value as v1.ListServiceResponse).service.map((s) => s.name);
    const answers = await reflect(
      v1,
      transport,
      names.map((n) => ({ messageRequest: { case: 'fileContainingSymbol', value: n } })),
    );
    names.forEach((name, i) => {
      const files = filesOf(answers[i]!);
      const registry = createFileRegistry(files[0]!, (file) => files.find((f) => f.name === file));
      const service = registry.getService(name);
      expect(service, name).toBeDefined();
      for (const m of service!.methods)
        expect(
          [m.input.typeName, m.output.typeName].every((t) => registry.getMessage(t)),
          `${name}/${m.name}`,
        ).toBe(true);
    });
  });

  it('grpc.health knows the reflection services', async () => {
    const health = createClient(Health, transportFor(h, 'grpc'));
    for (const service of ['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection']) {
      expect((await health.check({ service })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    }
  });
});

describe('reflection over the Connect and gRPC-Web protocols', () => {
  it.each(['connect', 'grpc-web'] as const)('%s over HTTP/2 on the gRPC port answers on one stream', async (protocol) => {
    const transport =
      protocol === 'connect'
        ? createConnectTransport({ baseUrl: h.grpcUrl, httpVersion: '2', sessionManager: session() })
        : createGrpcWebTransport({ baseUrl: h.grpcUrl, httpVersion: '2', sessionManager: session() });
    const answers = await reflect(v1, transport, [
      { messageRequest: { case: 'listServices', value: '' } },
      { messageRequest: { case: 'fileContainingSymbol', value: 'fluxdesk.events.v1.InboundEvent' } },
    ]);
    expect(answers.map((a) => a.messageResponse.case)).toEqual(['listServicesResponse', 'fileDescriptorResponse']);
    expect(filesOf(answers[1]!)[0]!.name).toBe('fluxdesk/events/v1/events.proto');
  });

  // connect-es serves bidi streams only over HTTP/2: the HTTP/1.1 listener answers 505 (HTTP Version
  // Not Supported), telling the tool to use HTTP/2 (the gRPC port), not that reflection is missing.
  it.each(['connect', 'grpc-web'] as const)('%s over HTTP/1.1 on the main port: 505, use HTTP/2', async (protocol) => {
    const err = await reflect(v1, transportFor(h, protocol), [{ messageRequest: { case: 'listServices', value: '' } }]).then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    expect(err?.message).toContain('HTTP 505');
  });
});
