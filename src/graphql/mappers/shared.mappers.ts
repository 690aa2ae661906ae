/**
 * Mappers of the shared schema (codegen.ts picks up every `export type <SchemaType>Mapper` here): the parent value a
 * resolver of that type receives is the domain layer's record, and every field that is not a plain property of the
 * record has a resolver in src/graphql/resolvers/shared/.
 */
import type { CourseRecord, LectureRecord, SectionRecord } from '../../member/courses.js';
import type { EventRecord, EventRegistrationRecord } from '../../member/events.js';
import type { DigitalProductRecord } from '../../member/products.js';
import type { ViewerSchoolRecord } from '../../member/schools.js';
import type { ConsultingServiceRecord, ConsultingSlotRecord, CourseRefRecord, ServiceMeetingRecord } from '../../member/services.js';
import type { ViewerRecord } from '../../member/viewer.js';
import type { LazyTotalConnection } from '../resolvers/connection.js';

export type ViewerMapper = ViewerRecord;
export type ViewerSchoolMapper = ViewerSchoolRecord;
export type CourseMapper = CourseRecord;
/** `totalCount` is null when the page did not tell it; CourseConnection.totalCount counts then. */
export type CourseConnectionMapper = LazyTotalConnection<CourseRecord>;
export type SectionMapper = SectionRecord;
export type LectureMapper = LectureRecord;
export type CourseRefMapper = CourseRefRecord;
export type DigitalProductMapper = DigitalProductRecord;
export type ConsultingServiceMapper = ConsultingServiceRecord;
export type ConsultingSlotMapper = ConsultingSlotRecord;
export type ServiceMeetingMapper = ServiceMeetingRecord;
export type EventRegistrationMapper = EventRegistrationRecord;
export type EventMapper = EventRecord;
