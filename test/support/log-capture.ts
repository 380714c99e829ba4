import { pino, type Logger } from 'pino';

/**
 * A logger for a test server that resolves `seen` with the first line whose message is `message`
 * (its fields as logged): how a test waits for something the server does in the background.
 */
export function waitForLog(message: string): { log: Logger; seen: Promise<Record<string, unknown>> } {
  let found: (line: Record<string, unknown>) => void = () => {};
  const seen = new Promise<Record<string, unknown>>((resolve) => (found = resolve));
  const log = pino(
    { level: 'info' },
    {
      write(text: string) {
        const line = JSON.parse(text) as Record<string, unknown>;
        if (line.msg === message) found(line);
      },
    },
  );
  return { log, seen };
}
