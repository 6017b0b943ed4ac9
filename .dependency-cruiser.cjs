/** Import rules of docs/architecture.md ("Layer rules CI enforces"), enforced in CI (`npm run lint:imports`). */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-transport-agnostic',
      comment:
        'domain/ imports only domain/*, @mikro-orm/core, zod and node built-ins; not the hot-path mechanics (timers, dataloader, lru-cache: infra implements the ports)',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: {
        path: [
          '^src/(app|infra|transports)/',
          '^gen/',
          'node_modules/(fastify|@fastify|@connectrpc|@bufbuild|ioredis|pino|@mikro-orm/(postgresql|pglite|migrations|sql)|dataloader|lru-cache)',
          '^(node:)?timers',
        ],
      },
    },
    {
      name: 'app-knows-no-transport',
      severity: 'error',
      from: { path: '^src/app/' },
      to: { path: ['^src/transports/', '^gen/', 'node_modules/(fastify|@connectrpc)'] },
    },
    {
      name: 'infra-knows-no-app-or-transport',
      severity: 'error',
      from: { path: '^src/infra/' },
      to: { path: ['^src/(app|transports)/', '^gen/'] },
    },
    {
      name: 'no-transport-imports-another',
      comment: 'transports/http is the shared HTTP base; every other transport stands alone',
      severity: 'error',
      from: { path: '^src/transports/([^/]+)/', pathNot: '^src/transports/http/' },
      to: { path: '^src/transports/([^/]+)/', pathNot: ['^src/transports/$1/', '^src/transports/http/'] },
    },
    {
      name: 'http-base-imports-only-what-it-composes',
      comment: 'server.ts composes the surfaces; the other http/ files import no surface',
      severity: 'error',
      from: { path: '^src/transports/http/', pathNot: '^src/transports/http/server\\.ts$' },
      to: { path: '^src/transports/(rest-v1|legacy|connect|cli|mcp)/' },
    },
    {
      name: 'gen-only-in-connect',
      comment: 'generated code is imported only by the Connect transport (and tests)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/transports/connect/' },
      to: { path: '^gen/' },
    },
    {
      name: 'no-circular',
      comment:
        'no import cycle, type-only imports included: a type cycle still ties the modules together for every reader and refactor, ' +
        'so shared types live in a leaf module both sides import',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
