// gRPC server reflection (grpc.reflection.v1 and the older v1alpha, the same messages): lets grpcurl,
// `buf curl`, Postman and Kreya list the services and fetch their schema without the .proto files.
// Built from the descriptors compiled into gen/ (protobuf-es DescFiles, WKT files included through
// their dependencies), i.e. exactly what the listener serves. Anonymous like grpc.health: the
// schema is public (proto/ is in the repository) and tools ask before any token is configured.
//
// A bidi stream: one answer per request, in order. connect-es needs HTTP/2 for a bidi stream to be
// full duplex; on the HTTP/1.1 listener (Connect, gRPC-Web) a client can still send its requests
// and end the body, then read the answers (half duplex), which is what a batch of lookups needs.
import { Code, type ConnectRouter } from '@connectrpc/connect';
import type { DescEnum, DescExtension, DescFile, DescMessage, DescService } from '@bufbuild/protobuf';
import { toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import * as v1 from '../../../gen/grpc/reflection/v1/reflection_pb.js';
import * as v1alpha from '../../../gen/grpc/reflection/v1alpha/reflection_pb.js';

/** The reflection services' names (anonymous in serving.ts, known to grpc.health). */
export const REFLECTION_SERVICES: readonly string[] = [v1.ServerReflection.typeName, v1alpha.ServerReflection.typeName];

type Request = v1.ServerReflectionRequest | v1alpha.ServerReflectionRequest;

/** The oneof of a ServerReflectionResponse; v1 and v1alpha share its shape (cases and fields). */
type Answer =
  | { case: 'fileDescriptorResponse'; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: 'allExtensionNumbersResponse'; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: 'listServicesResponse'; value: { service: { name: string }[] } }
  | { case: 'errorResponse'; value: { errorCode: number; errorMessage: string } };

/** What the reflection service knows: built on the first request, once every service is registered. */
interface Index {
  services: { name: string }[];
  files: Map<string, DescFile>;
  symbols: Map<string, DescFile>;
  /** Extensions by `<extendee>:<number>`, and the numbers per extendee. */
  extensions: Map<string, DescFile>;
  extensionNumbers: Map<string, number[]>;
  /** Each file with its transitive dependencies, serialized once. */
  closure: Map<DescFile, Uint8Array[]>;
}

/** Registers both reflection services on a listener's router; they describe every service on it. */
export function registerReflection(router: ConnectRouter): void {
  let index: Index | undefined;
  const handler = async function* (requests: AsyncIterable<Request>) {
    for await (const req of requests) {
      index ??= buildIndex(router.handlers.map((h) => h.service));
      yield { validHost: req.host, originalRequest: req, messageResponse: answer(index, req) };
    }
  };
  router.service(v1.ServerReflection, { serverReflectionInfo: handler as never });
  router.service(v1alpha.ServerReflection, { serverReflectionInfo: handler as never });
}

function answer(index: Index, req: Request): Answer {
  const r = req.messageRequest;
  switch (r.case) {
    case 'listServices':
      return { case: 'listServicesResponse', value: { service: index.services } };
    case 'fileByFilename':
      return files(index, index.files.get(r.value), `file ${r.value}`);
    case 'fileContainingSymbol':
      return files(index, index.symbols.get(stripDot(r.value)), `symbol ${r.value}`);
    case 'fileContainingExtension': {
      const key = `${stripDot(r.value.containingType)}:${r.value.extensionNumber}`;
      return files(index, index.extensions.get(key), `extension ${r.value.extensionNumber} of ${r.value.containingType}`);
    }
    case 'allExtensionNumbersOfType': {
      const type = stripDot(r.value);
      const found = index.symbols.get(type);
      if (!found || !isMessage(found, type)) return notFound(`message type ${r.value}`);
      return { case: 'allExtensionNumbersResponse', value: { baseTypeName: type, extensionNumber: index.extensionNumbers.get(type) ?? [] } };
    }
    default:
      return { case: 'errorResponse', value: { errorCode: Code.InvalidArgument, errorMessage: 'set one of the message_request fields' } };
  }
}

/** The file first, then its transitive dependencies (clients resolve imports from them). */
function files(index: Index, file: DescFile | undefined, what: string): Answer {
  if (!file) return notFound(what);
  let closure = index.closure.get(file);
  if (!closure) {
    const seen = new Set<DescFile>();
    const visit = (f: DescFile): void => {
      if (seen.has(f)) return;
      seen.add(f);
      for (const d of f.dependencies) visit(d);
    };
    visit(file);
    closure = [...seen].map((f) => toBinary(FileDescriptorProtoSchema, f.proto));
    index.closure.set(file, closure);
  }
  return { case: 'fileDescriptorResponse', value: { fileDescriptorProto: closure } };
}

function notFound(what: string): Answer {
  // The request is echoed whole in original_request; the message needs only its start.
  const shown = what.length > 200 ? `${what.slice(0, 200)}...` : what;
  return { case: 'errorResponse', value: { errorCode: Code.NotFound, errorMessage: `${shown} not found` } };
}

const stripDot = (name: string): string => (name.startsWith('.') ? name.slice(1) : name);

function isMessage(file: DescFile, typeName: string): boolean {
  const walk = (ms: readonly DescMessage[]): boolean => ms.some((m) => m.typeName === typeName || walk(m.nestedMessages));
  return walk(file.messages);
}

function buildIndex(registered: readonly DescService[]): Index {
  const index: Index = { services: [], files: new Map(), symbols: new Map(), extensions: new Map(), extensionNumbers: new Map(), closure: new Map() };
  const names = new Set<string>();
  for (const s of registered) {
    if (names.has(s.typeName)) continue;
    names.add(s.typeName);
    index.services.push({ name: s.typeName });
    addFile(index, s.file);
  }
  return index;
}

/** Indexes a file and its imports: every fully-qualified name a client may ask about. */
function addFile(index: Index, file: DescFile): void {
  const fileName = file.proto.name;
  if (index.files.has(fileName)) return;
  index.files.set(fileName, file);
  const scope = file.proto.package;
  const symbol = (name: string): void => void index.symbols.set(name, file);
  const addEnum = (e: DescEnum, parentScope: string): void => {
    symbol(e.typeName);
    // Enum values are scoped like siblings of their enum (protobuf C++ scoping rules).
    for (const v of e.values) symbol(parentScope ? `${parentScope}.${v.name}` : v.name);
  };
  const addExtension = (x: DescExtension): void => {
    symbol(x.typeName);
    index.extensions.set(`${x.extendee.typeName}:${x.number}`, file);
    const numbers = index.extensionNumbers.get(x.extendee.typeName) ?? [];
    numbers.push(x.number);
    index.extensionNumbers.set(x.extendee.typeName, numbers);
  };
  const addMessage = (m: DescMessage): void => {
    symbol(m.typeName);
    for (const f of m.fields) symbol(`${m.typeName}.${f.name}`);
    for (const o of m.oneofs) symbol(`${m.typeName}.${o.name}`);
    for (const e of m.nestedEnums) addEnum(e, m.typeName);
    for (const x of m.nestedExtensions) addExtension(x);
    for (const n of m.nestedMessages) addMessage(n);
  };
  for (const m of file.messages) addMessage(m);
  for (const e of file.enums) addEnum(e, scope);
  for (const x of file.extensions) addExtension(x);
  for (const s of file.services) {
    symbol(s.typeName);
    for (const m of s.methods) symbol(`${s.typeName}.${m.name}`);
  }
  for (const d of file.dependencies) addFile(index, d);
}
