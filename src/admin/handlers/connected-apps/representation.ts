import type { components } from '../../../../generated/admin-api.js';
import type { ConnectedApp } from '../../../clients/connected-apps.js';

export type ConnectedAppBody = components['schemas']['ConnectedApp'];
type Kind = components['schemas']['OAuthApplicationKind'];

export function connectedAppRepresentation(app: ConnectedApp): ConnectedAppBody {
  return {
    grantId: app.grantId,
    userId: app.userId,
    application: { clientId: app.client.clientId, name: app.client.name, kind: app.client.kind as Kind, source: app.source },
    scopes: app.scopes,
    approvedAt: app.approvedAt.toISOString(),
    lastUsedAt: app.lastUsedAt === null ? null : app.lastUsedAt.toISOString(),
  };
}
