import { expect } from 'chai';
import { showsOn } from '../src/db/pool-guard.js';

describe("the probes' reading of Galera's readiness", () => {
  it('takes wsrep_on and wsrep_ready as ON only when a row says so: no row (MySQL) or OFF (MariaDB outside a cluster, a node cut off) is not ON', () => {
    expect(showsOn([{ Variable_name: 'wsrep_ready', Value: 'ON' }])).to.equal(true);
    expect(showsOn([{ Variable_name: 'wsrep_ready', Value: 'OFF' }])).to.equal(false);
    expect(showsOn([])).to.equal(false);
    expect(showsOn(undefined)).to.equal(false);
  });
});
