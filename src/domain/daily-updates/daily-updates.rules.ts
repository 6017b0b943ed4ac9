// Daily updates (SPEC C submit_daily_update): one entry per user per UTC day of the service clock
// (the injected clock, never the database's now()); a second submit the same day overwrites it.

/**
 * `available`: reachable as usual; `limited`: partly reachable (meetings, travel, part day);
 * `unavailable`: not reachable today; `out_of_office`: on leave.
 */
export const AVAILABILITY_STATUSES = ['available', 'limited', 'unavailable', 'out_of_office'] as const;
export type AvailabilityStatus = (typeof AVAILABILITY_STATUSES)[number];

/** The UTC calendar day of `now` as YYYY-MM-DD. */
export const utcDay = (now: Date): string => now.toISOString().slice(0, 10);
