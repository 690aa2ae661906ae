import type { components } from '../../../../generated/admin-api.js';
import type { Member } from '../../../people/members.js';

export type MemberRepresentation = components['schemas']['Member'];

export function memberRepresentation(member: Member): MemberRepresentation {
  return {
    id: member.id,
    email: member.email,
    name: member.name,
    avatarUrl: member.avatarUrl,
    roles: member.roles,
    joinedAt: member.joinedAt.toISOString(),
    createdAt: member.joinedAt.toISOString(),
    updatedAt: member.updatedAt.toISOString(),
  };
}
