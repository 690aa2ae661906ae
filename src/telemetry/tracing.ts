/** A started tracing SDK: `shutdown` exports the spans still buffered and stops. */
export interface Tracing {
  shutdown(): Promise<void>;
}
