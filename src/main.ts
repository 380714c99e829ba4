#!/usr/bin/env node
import { COMMANDS } from './cli/index.js';
import { openConfiguredGraph, type CliContext } from './cli/context.js';
import { ConfigError, loadConfig } from './config.js';
import { helpText } from './cli/help.js';
import { AitiaError } from './model/index.js';
import { createLogger } from './log.js';
import { packageVersion } from './package-root.js';

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') {
    console.log(helpText());
    return 0;
  }
  if (argv.includes('--version')) {
    console.log(packageVersion());
    return 0;
  }
  const name = argv[0] && !argv[0].startsWith('-') ? argv[0] : 'serve';
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    console.error(`aitia: unknown command "${name}"\n\n${helpText()}`);
    return 2;
  }
  const config = loadConfig();
  const log = createLogger(config.logLevel, command.stdoutIsProtocol ? 'stderr' : 'stdout');
  const ctx: CliContext = {
    config,
    log,
    openGraph: () => openConfiguredGraph(config, log),
    print: (line) => console.error(line),
  };
  return command.run(argv[0] === name ? argv.slice(1) : argv, ctx);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ConfigError || err instanceof AitiaError) console.error(`aitia: ${err.message}`);
    else console.error('aitia: fatal:', err);
    process.exit(1);
  },
);
