/** Start-up refuses a malformed configuration with one line, before anything listens: bad input never half-starts the server. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
