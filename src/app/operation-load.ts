// Operations in flight in this process over every surface (REST v1, legacy, MCP, Connect, gRPC,
// the operator CLI): runOperation counts them. Background work reads it to yield to requests
// (the nudge dispatcher: infra/queue/dispatch-pacer.ts).
export class OperationLoad {
  private n = 0;

  get inFlight(): number {
    return this.n;
  }

  enter(): void {
    this.n++;
  }

  leave(): void {
    this.n--;
  }
}
