/**
 * Variant A's schema types backed by domain records (src/member/): codegen maps each `<Type>Mapper` to its schema
 * type, so resolvers receive these as parents and the fields whose shape differs have their own resolvers.
 */
import type { ViewerMeeting } from '../../member/meetings.js';
import type { ViewerNotification } from '../../member/notifications.js';
import type { ViewerPayment } from '../../member/payments.js';

export type ConsultingMeetingMapper = ViewerMeeting;
export type PaymentMapper = ViewerPayment;
export type NotificationMapper = ViewerNotification;
