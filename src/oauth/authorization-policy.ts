export { permittedAudiences, rolesPermitClient } from '../grants/authorization-policy.js';
