/**
 * The MySQL/MariaDB server bench:scale measures on, sized as a server that keeps the scenarios' data would be: its
 * buffer pool (`innodb_buffer_pool_size`) is raised for the run, to SCALE_MYSQL_BUFFER_POOL_MB (8 GB unless set; 0
 * leaves it), and put back afterwards. 10M token pairs are about 5.5 GB with their indexes (deployment.md sizes a
 * production server the same way); on the default 128 MB pool every random key of the two token-hash indexes is a
 * page read, and that is all a measurement would show.
 */
import { mysqlAdmin } from '../../support/databases.js';

export const BUFFER_POOL_MB = Number(process.env.SCALE_MYSQL_BUFFER_POOL_MB ?? 8192);

/**
 * Runs `run` with the server's buffer pool at least `megabytes`, and gives `run` the size it has (MB) for the report.
 * Resizing is online; a server that refuses (no privilege) keeps its own size, which the report then names.
 */
export async function withBufferPool<T>(megabytes: number, run: (poolMb: number) => Promise<T>): Promise<T> {
  const admin = mysqlAdmin();
  try {
    const poolMb = async () => {
      const [rows] = (await admin.raw('SELECT @@innodb_buffer_pool_size AS size')) as [Array<{ size: number | string }>];
      return Math.round(Number(rows[0]?.size ?? 0) / 1048576);
    };
    const before = await poolMb();
    let raised = false;
    if (before < megabytes) {
      try {
        await admin.raw(`SET GLOBAL innodb_buffer_pool_size = ${Math.trunc(megabytes) * 1048576}`);
        raised = true;
      } catch {
        // Kept as it is: the report shows the size measured.
      }
    }
    try {
      return await run(await poolMb());
    } finally {
      if (raised) await admin.raw(`SET GLOBAL innodb_buffer_pool_size = ${before * 1048576}`);
    }
  } finally {
    await admin.destroy();
  }
}
