import type { ViewerResolvers } from '../../../../../generated/graphql/resolvers.js';
import { listConsultingServices } from '../../../../member/services.js';
import { toConnection } from '../../connection.js';

/** Viewer.consultingServices: services offered against the viewer's delivered courses, by title (a catalogue, not purchases). */
export const consultingServices: NonNullable<ViewerResolvers['consultingServices']> = async (_viewer, args, context) => toConnection(await listConsultingServices(context, args));
