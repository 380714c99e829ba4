import { createServer, Socket } from 'node:net';

/** Asks the OS for a free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Connects to 127.0.0.1:port and resolves true once `answered` says so (it is given the socket and
 * the resolver), false on an error or after `timeoutMs`; the socket is always closed.
 */
function probePort(
  port: number,
  timeoutMs: number,
  onConnect: (sock: Socket, answer: () => void) => void,
): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = new Socket();
    const done = (v: boolean) => {
      sock.destroy();
      resolve(v);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('error', () => done(false));
    sock.connect(port, '127.0.0.1', () => onConnect(sock, () => done(true)));
  });
}

/** True when something already accepts connections on 127.0.0.1:port. */
export function portAnswers(port: number, timeoutMs = 500): Promise<boolean> {
  return probePort(port, timeoutMs, (_sock, answer) => answer());
}

/**
 * True when a Bolt server on 127.0.0.1:port answers the Bolt handshake within `timeoutMs`. Unlike
 * {@link portAnswers} this tells a frozen Neo4j (SIGSTOP, a stuck JVM) from a live one: the kernel
 * still accepts its TCP connections, but only a running JVM answers the handshake.
 */
export function boltAnswers(port: number, timeoutMs = 1500): Promise<boolean> {
  return probePort(port, timeoutMs, (sock, answer) => {
    // Any 4-byte reply (the version chosen, or 0 for none) is an answer.
    sock.once('data', answer);
    // The Bolt magic, then four versions offered: 5.4, 4.4, none, none.
    sock.write(Buffer.from([0x60, 0x60, 0xb0, 0x17, 0, 0, 4, 5, 0, 0, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0]));
  });
}
