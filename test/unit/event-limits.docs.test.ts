// The proto comments (the contract text of internal callers) state the event limits in prose: each
// figure they give is the one of src/domain/events/event.limits.ts, so a changed limit fails here
// until the comment says so too. The spec's figures are checked as literals alongside.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_LIMITS } from '../../src/domain/events/event.limits.js';

const ROOT = join(import.meta.dirname, '../..');
/** A proto file's comments as one line: `//` markers and runs of whitespace as one space. */
const comments = (file: string) =>
  readFileSync(join(ROOT, file), 'utf8')
    .replace(/\s*\/\/\s*/g, ' ')
    .replace(/\s+/g, ' ');

const EVENTS = 'proto/fluxdesk/events/v1/events.proto';
const MODERATION = 'proto/fluxdesk/moderation/v1/moderation.proto';

describe('the event limits as the proto comments state them', () => {
  it('the spec figures are the constants', () => {
    expect(EVENT_LIMITS).toMatchObject({
      eventIdMax: 120,
      eventTypeMax: 60,
      titleMax: 200,
      summaryMax: 500,
      markdownBodyMax: 8000,
      urlMax: 2000,
      emailMax: 120,
      actorNameMax: 80,
      labelsMax: 20,
      labelValueMax: 80,
      actionsMax: 4,
      actionLabelMax: 40,
      displayHintMax: 80,
      projectSlugMax: 80,
      resolutionNoteMax: 500,
    });
  });

  it(EVENTS, () => {
    const L = EVENT_LIMITS;
    const text = comments(EVENTS);
    for (const phrase of [
      `Stable id of the logical event in the originating system; 1-${L.eventIdMax} chars`,
      `not interpreted; 1-${L.eventTypeMax} chars`,
      `Headline shown to the recipient; 1-${L.titleMax} chars, single line.`,
      `Title as sent; 1-${L.titleMax} chars.`,
      `Short plain-text summary; at most ${L.summaryMax} chars.`,
      `Markdown body; at most ${L.markdownBodyMax} chars.`,
      `Markdown text of the follow-up; 1-${L.markdownBodyMax} chars. Required.`,
      `Link to the event in the originating system; at most ${L.urlMax} chars;`,
      `required when action_type is \`url\`; at most ${L.urlMax} chars;`,
      `required when action_type is \`webhook\`; at most ${L.urlMax} chars;`,
      `at most ${L.labelsMax} entries; values at most ${L.labelValueMax} chars`,
      `Action buttons shown with the event; at most ${L.actionsMax}.`,
      `Button text; 1-${L.actionLabelMax} chars.`,
      `Actor's email address; valid email, at most ${L.emailMax} chars.`,
      `Actor's display name; at most ${L.actorNameMax} chars.`,
      `Free-text description of the recipient; at most ${L.displayHintMax} chars.`,
      `Project the event belongs to; 1-${L.projectSlugMax} chars.`,
      `explaining the resolution; at most ${L.resolutionNoteMax} chars.`,
    ]) {
      expect(text).toContain(phrase);
    }
  });

  it(MODERATION, () => {
    const L = EVENT_LIMITS;
    const text = comments(MODERATION);
    expect(text).toContain(`New title, 1-${L.titleMax} chars, single line.`);
    expect(text).toContain(`New summary, at most ${L.summaryMax} chars;`);
    expect(text).toContain(`New markdown body, at most ${L.markdownBodyMax} chars;`);
  });
});
