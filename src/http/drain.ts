import type http from 'node:http';
import type { Socket } from 'node:net';
import type { Middleware } from 'koa';
import type { Lifecycle } from './health.js';
import type { RequestState } from './state.js';

/**
 * While the process drains for a shutdown, every answer says `Connection: close` (RFC 9112 9.6): a keep-alive client
 * then opens its next request on a new connection (to another instance once the load balancer has seen /readyz 503)
 * instead of sending it on a socket that is about to close. Node closes the socket after such an answer. Set before
 * the request is handled (for answers written directly to the socket) and again after it, for a drain that began
 * while the request ran or an error answer that replaced the headers.
 */
export function closeConnectionsWhileDraining(lifecycle: Lifecycle): Middleware<RequestState> {
  return async (ctx, next) => {
    if (lifecycle.state === 'draining') ctx.set('Connection', 'close');
    try {
      await next();
    } finally {
      if (lifecycle.state === 'draining' && !ctx.headerSent) ctx.set('Connection', 'close');
    }
  };
}

/**
 * How long a connection must have gone without a request before a drain closes it. A busy keep-alive client sends its
 * next request within milliseconds of an answer and a new connection's first request follows its handshake as
 * closely: closing those (as Node's closeIdleConnections() does) would reset a request already on its way. They get
 * `Connection: close` on their next answer instead; only the ones that sit idle are closed here.
 */
const IDLE_BEFORE_CLOSE_MS = 1000;
const SWEEP_EVERY_MS = 250;

export interface IdleConnectionSweeper {
  /** Closes the connections idle for a second now and every quarter of a second until stopped. */
  start(): void;
  stop(): void;
}

interface Connection {
  /** Requests received and not yet answered. */
  requests: number;
  /** When the last answer finished (or the connection opened). */
  idleSince: number;
  /** Bytes read by then: more since means a request is on its way (its headers may take a while to arrive). */
  bytesReadWhenIdle: number;
}

/** Follows the server's connections (requests in progress, idle since when) so that a drain can close the idle ones. */
export function idleConnectionSweeper(server: http.Server): IdleConnectionSweeper {
  const connections = new Map<Socket, Connection>();
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { requests: 0, idleSince: Date.now(), bytesReadWhenIdle: socket.bytesRead });
    socket.once('close', () => connections.delete(socket));
  });
  server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
    const connection = connections.get(request.socket);
    if (!connection) return;
    connection.requests += 1;
    response.once('close', () => {
      connection.requests -= 1;
      connection.idleSince = Date.now();
      connection.bytesReadWhenIdle = request.socket.bytesRead;
    });
  });
  const sweep = () => {
    const cutoff = Date.now() - IDLE_BEFORE_CLOSE_MS;
    for (const [socket, connection] of connections) {
      if (connection.requests === 0 && connection.idleSince <= cutoff && socket.bytesRead === connection.bytesReadWhenIdle) socket.destroy();
    }
  };
  let timer: NodeJS.Timeout | undefined;
  return {
    start() {
      if (timer) return;
      sweep();
      timer = setInterval(sweep, SWEEP_EVERY_MS);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
