import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { AitiaError } from '../model/index.js';
import { importVcenterEvents } from '../ingest/vcenter/events-import.js';
import type { CliCommand } from './context.js';

const USAGE = 'aitia events import --provider vcenter --server <name> --file <events.json>';

/**
 * `aitia events import --provider vcenter --server <name> --file <json>`: imports a vCenter event
 * export (e.g. `govc events -json` output, VMOMI JSON, an event broker's CloudEvents) into the
 * graph, idempotently. Prints the counts and each event left out with its reason (skipped, or a
 * conflict with recorded history); exits 1 when any was left out, 2 on bad arguments.
 */
export const eventsCommand: CliCommand = {
  name: 'events',
  summary: 'import provider events (vCenter) from a JSON file',
  usage: USAGE,
  async run(args, ctx) {
    const { positionals, values } = parseArgs({
      args,
      allowPositionals: true,
      options: { provider: { type: 'string' }, server: { type: 'string' }, file: { type: 'string' } },
    });
    if (positionals[0] !== 'import' || !values.provider || !values.server || !values.file) {
      ctx.print(`usage: ${USAGE}`);
      return 2;
    }
    if (values.provider !== 'vcenter') {
      ctx.print(
        `--provider: only vcenter is imported from files (Proxmox tasks are polled); got ${JSON.stringify(values.provider)}`,
      );
      return 2;
    }
    let text: string;
    try {
      text = await readFile(values.file, 'utf8');
    } catch (err) {
      ctx.print(`--file: cannot read ${values.file}: ${(err as Error).message}`);
      return 2;
    }
    const graph = await ctx.openGraph();
    try {
      const report = await importVcenterEvents(graph.driver, text, { server: values.server });
      ctx.print(
        `${report.scope} events: received=${report.fetched} written=${report.events.written} new=${report.events.created} updated=${report.events.updated} skipped=${report.skipped.length} conflicts=${report.conflicts.length} duplicates=${report.duplicates.length} (${(report.durationMs / 1000).toFixed(1)} s)`,
      );
      for (const s of report.skipped) ctx.print(`  skipped ${s.id ?? '?'}: ${s.reason}`);
      // A conflict is an event refused (history is append-only): as much left out as a skipped one.
      for (const c of report.conflicts) ctx.print(`  conflict ${c.item}: ${c.reason}`);
      return report.skipped.length + report.conflicts.length > 0 ? 1 : 0;
    } catch (err) {
      if (err instanceof AitiaError && err.code === 'BAD_USER_INPUT') {
        // server → --server; events (the document) → --file.
        ctx.print(
          `--${err.field === 'server' ? 'server' : 'file'}: ${err.message.slice((err.field ?? '').length + 2)}`,
        );
        return 2;
      }
      throw err;
    } finally {
      await graph.close();
    }
  },
};
