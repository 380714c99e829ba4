import { parseArgs } from 'node:util';
import { RoleSchema } from '../model/index.js';
import { addToken } from '../server/tokens.js';
import type { CliCommand } from './context.js';

/** `aitia tokens add --name <name> --role <role>`: prints the new token once; stores its hash. */
export const tokensCommand: CliCommand = {
  name: 'tokens',
  summary: 'add a bearer token to the tokens file',
  usage: 'aitia tokens add --name <name> --role agent|scheduler|ingester|operator',
  async run(args, ctx) {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      options: { name: { type: 'string' }, role: { type: 'string' } },
    });
    if (positionals[0] !== 'add' || !values.name || !values.role) {
      ctx.print(`usage: ${this.usage}`);
      return 2;
    }
    const role = RoleSchema.safeParse(values.role);
    if (!role.success) {
      ctx.print(`--role: must be one of agent, scheduler, ingester, operator`);
      return 2;
    }
    const token = addToken(ctx.config.tokensFile, values.name, role.data);
    ctx.print(`added ${values.name} (${role.data}) to ${ctx.config.tokensFile}; token (shown once):`);
    ctx.print(token);
    return 0;
  },
};
