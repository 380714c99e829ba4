/**
 * A small, conservative reader of POSIX shell command lines: enough structure (lists, pipelines,
 * simple commands, redirections, quotes, substitutions, here-documents) for the command classifier
 * to judge each part. It never executes or expands anything; what it cannot read is reported in
 * `errors`, and the classifier treats that as a reason to fail closed.
 */

/** An I/O redirection: `>`/`>>`/`2>`/`&>`/`<` … and its target word. */
export interface Redirect {
  op: string;
  target: string;
}

/** One command with its words (after quote removal) and redirections. */
export interface SimpleCommand {
  words: string[];
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

type Token = { type: 'word'; value: string } | { type: 'op'; value: string };

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

function tokenize(text: string, out: ParsedShell): Token[] {
  const tokens: Token[] = [];
  const pendingHeredocs: Array<{ strip: boolean; delim: string | null }> = [];
  let word = '';
  let inWord = false;
  let i = 0;
  const flush = (): void => {
    if (!inWord) return;
    const waiting = pendingHeredocs.find((h) => h.delim === null);
    if (waiting && tokens.at(-1)?.type === 'op' && tokens.at(-1)?.value.startsWith('<<')) waiting.delim = word;
    tokens.push({ type: 'word', value: word });
    word = '';
    inWord = false;
  };
  // `$(…)`, backticks and process substitutions: record the body, keep a placeholder in the word.
  const substitution = (start: number, bodyStart: number, placeholder: string): number => {
    const end = text[start] === '`' ? text.indexOf('`', bodyStart) : closingParen(text, bodyStart - 1);
    if (end === -1) {
      out.errors.push(`unterminated ${placeholder}`);
      out.substitutions.push(text.slice(bodyStart));
      return text.length;
    }
    out.substitutions.push(text.slice(bodyStart, end));
    word += placeholder;
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
      if (text[i + 1] !== '\n') word += text[i + 1] ?? '';
      inWord = inWord || text[i + 1] !== '\n';
      i += 2;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end === -1) out.errors.push('unterminated single quote');
      word += text.slice(i + 1, end === -1 ? text.length : end);
      inWord = true;
      i = end === -1 ? text.length : end + 1;
    } else if (c === '"') {
      inWord = true;
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && '$`"\\\n'.includes(text[i + 1] ?? '')) {
          word += text[i + 1] === '\n' ? '' : text[i + 1];
          i += 2;
        } else if (text[i] === '$' && text[i + 1] === '(' && text[i + 2] !== '(') i = substitution(i, i + 2, '$(…)');
        else if (text[i] === '`') i = substitution(i, i + 1, '`…`');
        else word += text[i++];
      }
      if (i >= text.length) out.errors.push('unterminated double quote');
      i++;
    } else if (c === '$' && text.startsWith('((', i + 1)) {
      // Arithmetic expansion runs nothing: keep it as literal text of the word.
      const end = closingParen(text, i + 1);
      if (end === -1) out.errors.push('unterminated $((');
      word += text.slice(i, end === -1 ? text.length : end + 1);
      inWord = true;
      i = end === -1 ? text.length : end + 1;
    } else if (c === '$' && text[i + 1] === '(') {
      i = substitution(i, i + 2, '$(…)');
    } else if (c === '`') {
      i = substitution(i, i + 1, '`…`');
    } else if ((c === '<' || c === '>') && text[i + 1] === '(' && !inWord) {
      i = substitution(i, i + 2, `${c}(…)`);
    } else {
      const op = ALL_OPS.find((o) => text.startsWith(o, i));
      if (op === undefined) {
        word += c;
        inWord = true;
        i++;
        continue;
      }
      // `2>` and `2>&1`: a bare number right before a redirection is its file descriptor.
      const fd = REDIRECT_OPS.includes(op) && inWord && /^\d+$/.test(word) ? word : '';
      if (fd !== '') {
        word = '';
        inWord = false;
      } else flush();
      tokens.push({ type: 'op', value: fd + op });
      if (op === '<<' || op === '<<-') pendingHeredocs.push({ strip: op === '<<-', delim: null });
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
  let command: SimpleCommand = { words: [], redirects: [] };
  let redirectOp: string | null = null;
  const endCommand = (): void => {
    if (redirectOp !== null) out.errors.push(`redirection ${redirectOp} has no target`);
    redirectOp = null;
    if (command.words.length > 0 || command.redirects.length > 0) pipeline.push(command);
    command = { words: [], redirects: [] };
  };
  const endPipeline = (): void => {
    endCommand();
    if (pipeline.length > 0) out.pipelines.push(pipeline);
    pipeline = [];
  };
  for (const token of tokens) {
    if (token.type === 'word') {
      if (redirectOp !== null) command.redirects.push({ op: redirectOp, target: token.value });
      else command.words.push(token.value);
      redirectOp = null;
    } else if (PIPE_OPS.includes(token.value)) endCommand();
    else if (LIST_OPS.includes(token.value)) endPipeline();
    else redirectOp = token.value;
  }
  endPipeline();
  return out;
}
