// The protobuf message generator of the fuzz tests (test/fuzz/arbitraries.ts) past its nesting
// depth: a repeated or map field of messages is empty there. A generator that filters "undefined"
// out of an arbitrary that can give nothing else makes fast-check retry forever, synchronously: the
// Connect fuzz file would hang the whole run in a loop no test timeout can interrupt.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PublishBulkRequestSchema } from '../../gen/fluxdesk/events/v1/events_pb.js';
import { messageInit, type ProtoGen } from '../fuzz/arbitraries.js';

const gen: ProtoGen = { index: new Map(), ctx: { defs: {}, now: () => Date.now() } };

describe('fuzz protobuf generator', () => {
  it('past the nesting depth, a repeated message field is always empty (never an endless filter)', () => {
    const samples = fc.sample(messageInit(PublishBulkRequestSchema, gen, 4), { numRuns: 200, seed: 1 });
    expect(samples).toHaveLength(200);
    for (const s of samples) if ('recipients' in s) expect(s.recipients).toEqual([]);
  });
  it('above it, repeated message fields still get elements', () => {
    const samples = fc.sample(messageInit(PublishBulkRequestSchema, gen, 0), { numRuns: 200, seed: 1 });
    expect(samples.some((s) => Array.isArray(s.recipients) && s.recipients.length > 0)).toBe(true);
  });
});
