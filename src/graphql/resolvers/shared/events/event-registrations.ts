import type { ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { listEventRegistrations } from '../../../../member/events.js';
import { toConnection } from '../../connection.js';

/** Viewer.eventRegistrations: the viewer's registrations with their events, by event start, newest first. */
export const eventRegistrations: NonNullable<ViewerResolvers['eventRegistrations']> = async (_viewer, args, context) => toConnection(await listEventRegistrations(context, args));
