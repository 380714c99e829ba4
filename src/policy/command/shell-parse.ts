/**
 * A small, conservative reader of POSIX shell command lines: enough structure (lists, pipelines,
 * simple commands, redirections, quotes, substitutions, here-documents) for the command classifier
 * to judge each part. It never executes or expands anything; what it cannot read is reported in
 * `errors`, and the classifier treats that as a reason to fail closed. Each word carries what the
 * shell would expand in it (shell-words.ts), so a command word built at run time is seen as such.
 *
 * Measured against mvdan/sh in WASM (npm sh-syntax 0.7.0, MIT, 750 KB wasm, Node ≥ 16) for issue
 * 30: its only API is async (`parse(text): Promise<File>`) and it instantiates a Go runtime per
 * call — 50 ms for the first parse, ~14 ms each after on Node 20 — while classifyCommand is a pure
 * synchronous function inside the gate's decisions. The walk-arounds it was measured for were not
 * parse errors either (`rg --pre`, `-s@0`, `LD_PRELOAD=`): they need knowledge of each command's
 * options, which no parser has. So this reader stays, with expansion tracking added.
 */
import { closingBrace, decodeAnsiC, patternIn, type Expansion } from './shell-words.js';

/** An I/O redirection: `>`/`>>`/`2>`/`&>`/`<` … and its target word. */
export interface Redirect {
  op: string;
  target: string;
  /** What the shell expands in the target, or null for a static literal. */
  expansion: Expansion | null;
}

/** One command with its words (after quote removal) and redirections. */
export interface SimpleCommand {
  words: string[];
  /** Parallel to `words`: what the shell expands in each, or null for a static literal. */
  expansions: Array<Expansion | null>;
  redirects: Redirect[];
}

/** A command line read into pipelines of simple commands. */
export interface ParsedShell {
  /** Each pipeline is a list of commands joined by `|`; lists (`;`, `&&`, `||`, `&`) separate them. */
  pipelines: SimpleCommand[][];
  /** Bodies of `$(…)`, backticks and `<(…)`/`>(…)`: commands in their own right. */
  substitutions: string[];
  /** Bodies of here-documents (data, unless fed to an interpreter). */
  heredocs: string[];
  errors: string[];
}

type Token = { type: 'word'; value: string; expansion: Expansion | null } | { type: 'op'; value: string };

const REDIRECT_OPS = ['&>>', '&>', '>>', '>|', '>&', '<<<', '<<-', '<<', '<&', '<>', '>', '<'];
const PIPE_OPS = ['|&', '|'];
const LIST_OPS = ['&&', '||', ';;', ';', '&', '(', ')', '\n'];
// Longest first, so `&&` is not read as `&` `&`.
const ALL_OPS = [...REDIRECT_OPS, ...PIPE_OPS, ...LIST_OPS].sort((a, b) => b.length - a.length);

/** Index of the `)` closing the `(` at `open`, skipping quoted text; -1 when unbalanced. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === "'") i = text.indexOf("'", i + 1) === -1 ? text.length : text.indexOf("'", i + 1);
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

/**
 * The command substitutions inside text the shell expands without reading it as words: the
 * operand of `${x:-$(cmd)}`, an arithmetic `$(( $(cmd) ))`, an unquoted here-document's body.
 * Each `$(…)` and backtick body runs, so each is returned to be classified.
 */
function nestedSubstitutions(text: string, out: ParsedShell): void {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') i++;
    else if (c === '`') {
      const end = text.indexOf('`', i + 1);
      out.substitutions.push(text.slice(i + 1, end === -1 ? text.length : end));
      if (end === -1) out.errors.push('unterminated `…`');
      i = end === -1 ? text.length : end;
    } else if (c === '$' && text[i + 1] === '(' && text[i + 2] !== '(') {
      const end = closingParen(text, i + 1);
      out.substitutions.push(text.slice(i + 2, end === -1 ? text.length : end));
      if (end === -1) out.errors.push('unterminated $(…)');
      i = end === -1 ? text.length : end;
    }
  }
}

function tokenize(text: string, out: ParsedShell): Token[] {
  const tokens: Token[] = [];
  const pendingHeredocs: Array<{ strip: boolean; delim: string | null; quoted: boolean }> = [];
  let word = '';
  // The word's unquoted characters, quoted ones as NUL: where globs and braces can act.
  let bare = '';
  let expansion: Expansion | null = null;
  let inWord = false;
  let i = 0;
  const quoted = (s: string): void => {
    word += s;
    bare += '\0'.repeat(s.length);
  };
  const mark = (why: string, unquoted: boolean, known = false): void => {
    if (expansion === null) expansion = { why, known, at: word.length, splits: false, fieldSplit: false };
    else expansion.known &&= known;
    if (unquoted && !known) expansion.splits = expansion.fieldSplit = true;
  };
  const flush = (): void => {
    if (!inWord) return;
    const waiting = pendingHeredocs.find((h) => h.delim === null);
    if (waiting && tokens.at(-1)?.type === 'op' && tokens.at(-1)?.value.startsWith('<<')) {
      waiting.delim = word;
      // A delimiter with any quoted character leaves the body unexpanded.
      waiting.quoted = bare !== word;
    }
    const pattern = patternIn(bare);
    if (pattern !== null) {
      const e: Expansion = expansion ?? {
        why: pattern.why,
        known: false,
        at: pattern.at,
        splits: true,
        fieldSplit: false,
      };
      expansion = { ...e, known: false, splits: true, at: Math.min(e.at, pattern.at) };
    }
    tokens.push({ type: 'word', value: word, expansion });
    word = '';
    bare = '';
    expansion = null;
    inWord = false;
  };
  // `$name`, `${…}`, `$1`, `$@` …: kept as written in the word, marked as expanded.
  const parameter = (unquoted: boolean): boolean => {
    const rest = text.slice(i + 1);
    let len: number;
    if (rest[0] === '{') {
      const end = closingBrace(text, i + 1);
      if (end === -1) out.errors.push('unterminated ${');
      len = (end === -1 ? text.length : end + 1) - i;
    } else len = 1 + (/^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(rest)?.[0].length ?? 0);
    if (len === 1) return false;
    mark('parameter expansion', unquoted);
    nestedSubstitutions(text.slice(i, i + len), out);
    quoted(text.slice(i, i + len));
    inWord = true;
    i += len;
    return true;
  };
  // `$(…)`, backticks and process substitutions: record the body, keep a placeholder in the word.
  const substitution = (start: number, bodyStart: number, placeholder: string, unquoted = true): number => {
    mark(
      placeholder.startsWith('$') || placeholder.startsWith('`') ? 'command substitution' : 'process substitution',
      unquoted,
    );
    const end = text[start] === '`' ? text.indexOf('`', bodyStart) : closingParen(text, bodyStart - 1);
    if (end === -1) {
      out.errors.push(`unterminated ${placeholder}`);
      out.substitutions.push(text.slice(bodyStart));
      return text.length;
    }
    out.substitutions.push(text.slice(bodyStart, end));
    quoted(placeholder);
    inWord = true;
    return end + 1;
  };
  const skipHeredocBodies = (): void => {
    for (const h of pendingHeredocs.splice(0)) {
      const body: string[] = [];
      for (;;) {
        if (i >= text.length) {
          out.errors.push(`here-document ${h.delim ?? ''} is not terminated`);
          break;
        }
        const nl = text.indexOf('\n', i);
        const line = text.slice(i, nl === -1 ? text.length : nl);
        i = nl === -1 ? text.length : nl + 1;
        if ((h.strip ? line.replace(/^\t+/, '') : line) === h.delim) break;
        body.push(line);
      }
      out.heredocs.push(body.join('\n'));
      if (!h.quoted) nestedSubstitutions(body.join('\n'), out);
    }
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\r') {
      flush();
      i++;
    } else if (c === '#' && !inWord) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '\\') {
      if (text[i + 1] !== '\n') quoted(text[i + 1] ?? '');
      inWord = inWord || text[i + 1] !== '\n';
      i += 2;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end === -1) out.errors.push('unterminated single quote');
      quoted(text.slice(i + 1, end === -1 ? text.length : end));
      inWord = true;
      i = end === -1 ? text.length : end + 1;
    } else if (c === '"' || (c === '$' && text[i + 1] === '"')) {
      // `$"…"` is translated by the locale: known in practice, but not a static literal.
      if (c === '$') {
        mark('locale translation $"…"', false, true);
        i++;
      }
      inWord = true;
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && '$`"\\\n'.includes(text[i + 1] ?? '')) {
          quoted(text[i + 1] === '\n' ? '' : text[i + 1]!);
          i += 2;
        } else if (text[i] === '$' && text[i + 1] === '(' && text[i + 2] !== '(')
          i = substitution(i, i + 2, '$(…)', false);
        else if (text[i] === '$' && text[i + 1] === '(') {
          const end = closingParen(text, i + 1);
          mark('arithmetic expansion', false);
          nestedSubstitutions(text.slice(i + 3, end === -1 ? text.length : end), out);
          quoted(text.slice(i, end === -1 ? text.length : end + 1));
          i = end === -1 ? text.length : end + 1;
        } else if (text[i] === '`') i = substitution(i, i + 1, '`…`', false);
        else if (text[i] === '$' && parameter(false)) continue;
        else quoted(text[i++]!);
      }
      if (i >= text.length) out.errors.push('unterminated double quote');
      i++;
    } else if (c === '$' && text.startsWith('((', i + 1)) {
      // Arithmetic runs nothing itself, but a substitution inside it does.
      const end = closingParen(text, i + 1);
      if (end === -1) out.errors.push('unterminated $((');
      mark('arithmetic expansion', true);
      nestedSubstitutions(text.slice(i + 3, end === -1 ? text.length : end), out);
      quoted(text.slice(i, end === -1 ? text.length : end + 1));
      inWord = true;
      i = end === -1 ? text.length : end + 1;
    } else if (c === '$' && text[i + 1] === "'") {
      const { value, end } = decodeAnsiC(text, i + 2);
      if (end === -1) out.errors.push("unterminated $'");
      mark("ANSI-C quoting $'…'", false, true);
      quoted(value);
      inWord = true;
      i = end === -1 ? text.length : end;
    } else if (c === '$' && text[i + 1] === '(') {
      i = substitution(i, i + 2, '$(…)');
    } else if (c === '$' && parameter(true)) {
      continue;
    } else if (c === '`') {
      i = substitution(i, i + 1, '`…`');
    } else if ((c === '<' || c === '>') && text[i + 1] === '(' && !inWord) {
      i = substitution(i, i + 2, `${c}(…)`);
    } else {
      const op = ALL_OPS.find((o) => text.startsWith(o, i));
      if (op === undefined) {
        word += c;
        bare += c;
        inWord = true;
        i++;
        continue;
      }
      // `2>` and `2>&1`: a bare number right before a redirection is its file descriptor.
      const fd = REDIRECT_OPS.includes(op) && inWord && /^\d+$/.test(word) ? word : '';
      if (fd !== '') {
        word = '';
        bare = '';
        expansion = null;
        inWord = false;
      } else flush();
      tokens.push({ type: 'op', value: fd + op });
      if (op === '<<' || op === '<<-') pendingHeredocs.push({ strip: op === '<<-', delim: null, quoted: false });
      i += op.length;
      if (op === '\n') skipHeredocBodies();
    }
  }
  flush();
  if (pendingHeredocs.length > 0) skipHeredocBodies();
  return tokens;
}

/** Reads `text` into pipelines of simple commands; never throws. */
export function parseShell(text: string): ParsedShell {
  const out: ParsedShell = { pipelines: [], substitutions: [], heredocs: [], errors: [] };
  const tokens = tokenize(text, out);
  let pipeline: SimpleCommand[] = [];
  let command: SimpleCommand = { words: [], expansions: [], redirects: [] };
  let redirectOp: string | null = null;
  const endCommand = (): void => {
    if (redirectOp !== null) out.errors.push(`redirection ${redirectOp} has no target`);
    redirectOp = null;
    if (command.words.length > 0 || command.redirects.length > 0) pipeline.push(command);
    command = { words: [], expansions: [], redirects: [] };
  };
  const endPipeline = (): void => {
    endCommand();
    if (pipeline.length > 0) out.pipelines.push(pipeline);
    pipeline = [];
  };
  for (const token of tokens) {
    if (token.type === 'word') {
      if (redirectOp !== null)
        command.redirects.push({ op: redirectOp, target: token.value, expansion: token.expansion });
      else {
        command.words.push(token.value);
        command.expansions.push(token.expansion);
      }
      redirectOp = null;
    } else if (PIPE_OPS.includes(token.value)) endCommand();
    else if (LIST_OPS.includes(token.value)) endPipeline();
    else redirectOp = token.value;
  }
  endPipeline();
  return out;
}
