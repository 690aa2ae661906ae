import type { ConsultingServiceInput, StudyGroupInput } from '../document.js';
import { IdMap, optionalTime, time, type ImportContext } from '../context.js';
import { moneyColumns } from '../../shared/money.js';

/** Consulting services with the courses they are offered against, their weekly slots, meetings and seats. */
export async function importConsultingServices(ctx: ImportContext): Promise<void> {
  for (const service of ctx.document.consultingServices ?? []) {
    const serviceId = await ctx.save(
      'consulting_services',
      { site_id: ctx.siteId, external_id: service.externalId },
      {
        title: service.title,
        description: service.description ?? null,
        duration_minutes: service.durationMinutes,
        capacity: service.capacity,
        ...moneyColumns('price', service.price),
        status: service.status ?? 'published',
      },
    );
    ctx.services.set(service.externalId, serviceId);
    for (const course of service.courses ?? []) await ctx.link('consulting_service_courses', { service_id: serviceId, course_id: ctx.courses.get(course) });
    const slots = await importSlots(ctx, service, serviceId);
    await importConsultingMeetings(ctx, service, serviceId, slots);
  }
}

async function importSlots(ctx: ImportContext, service: ConsultingServiceInput, serviceId: number): Promise<IdMap> {
  const slots = new IdMap(`slot of service ${service.externalId}`);
  for (const slot of service.slots ?? []) {
    const slotId = await ctx.save(
      'consulting_slots',
      { service_id: serviceId, external_id: slot.externalId },
      {
        weekday: slot.weekday,
        start_time: slot.startTime,
        duration_minutes: slot.durationMinutes,
        timezone: slot.timezone,
        capacity: slot.capacity,
        host_user_id: ctx.users.optional(slot.host),
        valid_from: optionalTime(slot.validFrom),
        valid_until: optionalTime(slot.validUntil),
      },
    );
    slots.set(slot.externalId, slotId);
  }
  return slots;
}

async function importConsultingMeetings(ctx: ImportContext, service: ConsultingServiceInput, serviceId: number, slots: IdMap): Promise<void> {
  for (const meeting of service.meetings ?? []) {
    const meetingId = await ctx.save(
      'meetings',
      { site_id: ctx.siteId, external_id: meeting.externalId },
      {
        service_id: serviceId,
        slot_id: slots.optional(meeting.slot),
        study_group_id: null,
        session_id: null,
        starts_at: time(meeting.startsAt),
        ends_at: time(meeting.endsAt),
        state: meeting.state,
        capacity: meeting.capacity,
        room_url: meeting.roomUrl ?? null,
        confirmed_at: optionalTime(meeting.confirmedAt),
        confirmed_by_user_id: ctx.users.optional(meeting.confirmedBy),
        canceled_at: optionalTime(meeting.canceledAt),
        cancel_reason: meeting.cancelReason ?? null,
      },
    );
    for (const seat of meeting.seats ?? []) {
      await ctx.link('meeting_seats', { meeting_id: meetingId, user_id: ctx.users.get(seat.user) }, { reserved_at: time(seat.reservedAt), canceled_at: optionalTime(seat.canceledAt) });
    }
  }
}

/** Study groups with their roster, weekly sessions and meetings (no seats: the roster is the attendee list). */
export async function importStudyGroups(ctx: ImportContext): Promise<void> {
  for (const group of ctx.document.studyGroups ?? []) {
    const groupId = await ctx.save(
      'study_groups',
      { site_id: ctx.siteId, external_id: group.externalId },
      { name: group.name, description: group.description ?? null, course_id: ctx.courses.optional(group.course), service_id: ctx.services.optional(group.service) },
    );
    for (const member of group.members ?? []) {
      await ctx.link('study_group_members', { study_group_id: groupId, user_id: ctx.users.get(member.user) }, { joined_at: time(member.joinedAt) });
    }
    const sessions = new IdMap(`session of study group ${group.externalId}`);
    for (const session of group.sessions ?? []) {
      const sessionId = await ctx.save(
        'study_group_sessions',
        { study_group_id: groupId, external_id: session.externalId },
        {
          weekday: session.weekday,
          start_time: session.startTime,
          duration_minutes: session.durationMinutes,
          timezone: session.timezone,
          valid_from: optionalTime(session.validFrom),
          valid_until: optionalTime(session.validUntil),
        },
      );
      sessions.set(session.externalId, sessionId);
    }
    await importGroupMeetings(ctx, group, groupId, sessions);
  }
}

async function importGroupMeetings(ctx: ImportContext, group: StudyGroupInput, groupId: number, sessions: IdMap): Promise<void> {
  const rosterSize = Math.max(1, group.members?.length ?? 0);
  for (const meeting of group.meetings ?? []) {
    await ctx.link(
      'meetings',
      { site_id: ctx.siteId, external_id: meeting.externalId },
      {
        service_id: null,
        slot_id: null,
        study_group_id: groupId,
        session_id: sessions.optional(meeting.session),
        starts_at: time(meeting.startsAt),
        ends_at: time(meeting.endsAt),
        state: meeting.state,
        capacity: meeting.capacity ?? rosterSize,
        room_url: meeting.roomUrl ?? null,
        confirmed_at: null,
        confirmed_by_user_id: null,
        canceled_at: optionalTime(meeting.canceledAt),
        cancel_reason: meeting.cancelReason ?? null,
      },
    );
  }
}

/** Events (keyed by externalId, or slug) with their registrations. */
export async function importEvents(ctx: ImportContext): Promise<void> {
  const siteTimezone = ctx.document.site.timezone ?? 'UTC';
  for (const event of ctx.document.events ?? []) {
    const eventId = await ctx.save(
      'events',
      [
        { site_id: ctx.siteId, external_id: event.externalId },
        { site_id: ctx.siteId, slug: event.slug },
      ],
      {
        slug: event.slug,
        title: event.title,
        description: event.description ?? null,
        starts_at: time(event.startsAt),
        ends_at: time(event.endsAt),
        timezone: event.timezone ?? siteTimezone,
        format: event.format,
        location: event.location ?? null,
        online_url: event.onlineUrl ?? null,
        capacity: event.capacity ?? null,
        status: event.status ?? 'published',
        is_public: event.isPublic ?? true,
        ...moneyColumns('price', event.price),
      },
    );
    ctx.events.set(event.externalId, eventId);
    for (const registration of event.registrations ?? []) {
      await ctx.link(
        'event_registrations',
        { event_id: eventId, user_id: ctx.users.get(registration.user) },
        {
          site_id: ctx.siteId,
          state: registration.state,
          ticket_code: registration.ticketCode ?? null,
          registered_at: time(registration.registeredAt),
          canceled_at: optionalTime(registration.canceledAt),
        },
      );
    }
  }
}
