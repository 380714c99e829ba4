/**
 * What the shell does to one word before a command sees it: which parts are expanded when it runs
 * (parameters, substitutions, globs, braces) and what ANSI-C quoting `$'…'` decodes to. The command
 * classifier needs both: a command word that is not a static literal is not known, and an argument
 * expanded at run time may turn into an option nobody read.
 */

/** How a word is not a static literal. */
export interface Expansion {
  /** The first reason, for the operator: `parameter expansion`, `glob`, `ANSI-C quoting` … */
  why: string;
  /** True when the value is known before it runs anyway (ANSI-C and locale quoting). */
  known: boolean;
  /** Length of the static text before the first expansion. */
  at: number;
  /** May become several words (an unquoted expansion, a glob, braces). */
  splits: boolean;
  /** An unquoted `$…` or `` `…` ``: any part of its value may become a word of its own. */
  fieldSplit: boolean;
}

/** True when the word may reach the command as an option (`-o/x`) nobody read. */
export function mayBeOption(e: Expansion | null | undefined): boolean {
  return e != null && !e.known && (e.at === 0 || e.fieldSplit);
}

/** True when the word may reach the command as more than one argument. */
export function mayBeMany(e: Expansion | null | undefined): boolean {
  return e != null && !e.known && e.splits;
}

/** True when the word's value is not known until it runs. */
export function isDynamic(e: Expansion | null | undefined): boolean {
  return e != null && !e.known;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/**
 * Decodes the body of `$'…'` starting at `start` (just after `$'`). Returns the decoded text and
 * the index after the closing quote, or -1 when it is not closed.
 */
export function decodeAnsiC(text: string, start: number): { value: string; end: number } {
  let value = '';
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'") return { value, end: i + 1 };
    if (c !== '\\') {
      value += c;
      i++;
      continue;
    }
    const e = text[i + 1] ?? '';
    const simple = SIMPLE_ESCAPES[e];
    const digits = (re: RegExp, from: number, max: number): string => {
      let d = '';
      while (d.length < max && re.test(text[from + d.length] ?? '')) d += text[from + d.length];
      return d;
    };
    if (simple !== undefined) {
      value += simple;
      i += 2;
    } else if (/[0-7]/.test(e)) {
      const d = digits(/[0-7]/, i + 1, 3);
      value += String.fromCharCode(parseInt(d, 8) & 0xff);
      i += 1 + d.length;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const d = digits(/[0-9A-Fa-f]/, i + 2, e === 'x' ? 2 : e === 'u' ? 4 : 8);
      value += d === '' ? `\\${e}` : String.fromCodePoint(Math.min(parseInt(d, 16), 0x10ffff));
      i += 2 + d.length;
    } else if (e === 'c' && i + 2 < text.length) {
      value += String.fromCharCode(text.charCodeAt(i + 2) & 0x1f);
      i += 3;
    } else {
      value += `\\${e}`;
      i += 2;
    }
  }
  return { value, end: -1 };
}

/** Index of the `}` closing the `${` whose `{` is at `open`, skipping quotes; -1 when unbalanced. */
export function closingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end === -1) return -1;
      i = end;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

/**
 * Globs and brace expansion, read from a word's unquoted characters (`bare`: the word with every
 * quoted or escaped character replaced by NUL). Returns the reason and where it starts, or null.
 */
export function patternIn(bare: string): { why: string; at: number } | null {
  const glob = bare.search(/[*?]|\[[^\]]*\]/);
  const brace = bare.search(/\{[^{}]*(,|\.\.)[^{}]*\}/);
  if (glob === -1 && brace === -1) return null;
  if (brace === -1 || (glob !== -1 && glob < brace)) return { why: 'glob', at: glob };
  return { why: 'brace expansion', at: brace };
}
