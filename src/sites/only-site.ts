import type { Database } from '../db/connection.js';
import type { SiteAddress } from '../shared/errors.js';

/** The origin and name of the database's only site; null when it holds none or more than one (two rows at most are read). */
export async function findOnlySite(db: Database): Promise<SiteAddress | null> {
  const rows = await db<{ origin: string; name: string }>('sites').select('origin', 'name').orderBy('id').limit(2);
  const [first] = rows;
  return rows.length === 1 && first ? { origin: first.origin, name: first.name } : null;
}
