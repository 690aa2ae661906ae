import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy between the server under test and MySQL. `refuse()` cuts every connection and stops listening (the
 * store is down: connection refused); `swallow()` cuts every connection and then accepts new ones without ever
 * forwarding a byte (the store hangs: the driver's connect timeout); `blackHole()` keeps every connection open but
 * stops forwarding on them, and accepts new ones without forwarding (the store hangs mid-query: nothing ever comes
 * back, nothing is closed); `forward()` restores it.
 */
export class TcpProxy {
  private server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  private mode: 'forward' | 'swallow' = 'forward';
  port = 0;

  constructor(private target: { host: string; port: number }) {
    this.server = this.createServer();
  }

  private createServer(): net.Server {
    return net.createServer((client) => {
      this.track(client);
      client.on('error', () => client.destroy());
      if (this.mode === 'swallow') return;
      const upstream = net.connect(this.target.port, this.target.host);
      this.track(upstream);
      upstream.on('error', () => client.destroy());
      const pair = { client, upstream };
      this.pairs.add(pair);
      client.on('close', () => {
        upstream.destroy();
        this.pairs.delete(pair);
      });
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  private cutAll(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  async refuse(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  swallow(): void {
    this.mode = 'swallow';
    this.cutAll();
  }

  blackHole(): void {
    this.mode = 'swallow';
    for (const { client, upstream } of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      // Read and drop whatever either side sends from now on: it never reaches the other.
      client.on('data', () => undefined);
      upstream.on('data', () => undefined);
    }
  }

  /** Cuts every connection and forwards new ones to `target` instead (another server at the same address). */
  async redirect(target: { host: string; port: number }): Promise<void> {
    this.target = target;
    await this.forward();
  }

  /** Connections open through the proxy (both sides of each forwarded one count). */
  get openSockets(): number {
    return this.sockets.size;
  }

  async forward(): Promise<void> {
    this.mode = 'forward';
    this.cutAll();
    if (!this.server.listening) {
      this.server = this.createServer();
      await this.listen();
    }
  }

  async close(): Promise<void> {
    this.cutAll();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
