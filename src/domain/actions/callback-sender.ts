// The port through which a click reaches the receiver. The domain knows no sockets: the composition
// root (src/deps.ts) builds the SSRF-guarded egress client (src/infra/http-egress), the Connect
// surface hands it to the operation.

export type CallbackError = 'timeout' | 'blocked_target' | 'network_error';

/** What the user sees as a toast: the receiver's status, or why there was none. */
export interface CallbackOutcome {
  /** The receiver's HTTP status (a 3xx redirect is reported, never followed); 0 when none. */
  status: number;
  /** status is 2xx. */
  ok: boolean;
  error?: CallbackError;
}

export interface CallbackSender {
  /** POSTs the raw bytes with the given headers; never throws for receiver or network failures. */
  post(url: string, body: Uint8Array, headers: Record<string, string>): Promise<CallbackOutcome>;
}
