/**
 * A tool answer as MCP text content: its JSON — names and messages are string values in it, never
 * free prose — with every character that does not show as itself written as a `\u` escape: C1
 * controls, bidi marks, overrides and isolates, zero-width characters, line and paragraph
 * separators (JSON.stringify escapes only C0). Ingest already cleans provider text
 * (src/model/provider-text.ts); this also covers what was stored before it did. These characters
 * only ever occur inside JSON strings, so the text parses to the same value as the structured content.
 */
const HIDDEN = /[\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

export function answerText(answer: unknown): string {
  return JSON.stringify(answer).replace(HIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
