export { endGrant, endGrants, endGrantsWhere } from '../../grants/end-grant.js';
