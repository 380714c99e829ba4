import { ENV_SCHEMA } from '../config.js';
import { packageVersion } from '../package-root.js';
import { COMMANDS } from './index.js';

/** `aitia --help`: commands and every environment variable with its meaning. */
export function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const env = Object.entries(ENV_SCHEMA.shape).map(
    ([name, schema]) => `  ${name.padEnd(28)} ${schema.description ?? ''}`,
  );
  return [
    `aitia ${packageVersion()} — infrastructure knowledge graph with change attribution`,
    '',
    'usage: aitia [command] [options]     (no command: serve)',
    '',
    'commands:',
    ...COMMANDS.map(
      (c) =>
        `  ${c.name.padEnd(width)}  ${c.summary}\n${c.usage
          .split('\n')
          .map((line) => `  ${' '.repeat(width)}  ${line}`)
          .join('\n')}`,
    ),
    '',
    'environment:',
    ...env,
  ].join('\n');
}
