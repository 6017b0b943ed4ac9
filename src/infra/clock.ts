import type { Clock } from '../domain/context.js';

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can move instead of sleeping. */
export class ManualClock implements Clock {
  private offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
  reset(): void {
    this.offsetMs = 0;
  }
}
