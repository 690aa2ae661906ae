import { ConfigError } from '../config/config-error.js';
import { runCli } from './program.js';

runCli(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  })
  .catch((error: unknown) => {
    process.stderr.write(`schoolgate: ${error instanceof ConfigError ? `configuration error: ${error.message}` : error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
