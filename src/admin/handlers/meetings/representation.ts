import type { components } from '../../../../generated/admin-api.js';
import type { MeetingRecord, MeetingWithSeats as MeetingWithSeatsRecord } from '../../../scheduling/meetings.js';

export type Meeting = components['schemas']['Meeting'];
export type MeetingWithSeats = components['schemas']['MeetingWithSeats'];

export function meetingRepresentation(meeting: MeetingRecord): Meeting {
  return {
    id: meeting.id,
    kind: meeting.kind,
    serviceId: meeting.serviceId,
    slotId: meeting.slotId,
    studyGroupId: meeting.studyGroupId,
    state: meeting.state,
    startsAt: meeting.startsAt.toISOString(),
    endsAt: meeting.endsAt.toISOString(),
    capacity: meeting.capacity,
    attendeesCount: meeting.attendeesCount,
    roomUrl: meeting.roomUrl,
    confirmedAt: meeting.confirmedAt?.toISOString() ?? null,
    confirmedByUserId: meeting.confirmedByUserId,
    confirmedBy: meeting.confirmedBy,
    canceledAt: meeting.canceledAt?.toISOString() ?? null,
    cancelReason: meeting.cancelReason,
    createdAt: meeting.createdAt.toISOString(),
    updatedAt: meeting.updatedAt.toISOString(),
  };
}

export function meetingWithSeatsRepresentation(meeting: MeetingWithSeatsRecord): MeetingWithSeats {
  return {
    ...meetingRepresentation(meeting),
    seats: meeting.seats.map((seat) => ({ member: seat.member, reservedAt: seat.reservedAt.toISOString(), canceledAt: seat.canceledAt?.toISOString() ?? null })),
  };
}
