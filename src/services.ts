import type { Config } from './config/config.js';
import type { Database } from './db/connection.js';
import type { Logger } from './shared/logger.js';

/** What every interface is built from: the configuration, the database and the process logger. */
export interface Services {
  config: Config;
  db: Database;
  logger: Logger;
}
