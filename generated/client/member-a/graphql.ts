/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** Origin of one of the viewer's meetings: a booked consulting slot or a study-group session. */
export type ConsultingMeetingKind =
  /** A meeting of a consulting service's slot in which the viewer booked a seat. */
  | 'CONSULTING_SLOT'
  /** A session of a study group the viewer belongs to; no seat rows, the roster is the attendee list. */
  | 'STUDY_GROUP';

/** The viewer's progress on one lecture. Values are spelled in lowercase. */
export type LectureState =
  /** The viewer has completed the lecture. */
  | 'completed'
  /** The viewer has opened the lecture but not completed it. */
  | 'read'
  /** The viewer has not opened the lecture. */
  | 'unread';

/** State of a meeting. Values are spelled in lowercase. A canceled meeting stays in lists; filter it out to show an upcoming schedule. */
export type MeetingState =
  /** Open: seats can be or have been reserved but staff has not confirmed it. Reserving a seat does not confirm a meeting; weekly study-group sessions stay `available`. */
  | 'available'
  /** Canceled. It remains in the viewer's list. */
  | 'canceled'
  /** Confirmed by staff (consulting slots only). */
  | 'scheduled';

/** Kind of item on a payment line. */
export type PaymentLineItemKind =
  /** A consulting service. */
  | 'CONSULTING_SERVICE'
  /** A course. */
  | 'COURSE'
  /** A digital product. */
  | 'DIGITAL_PRODUCT'
  /** An event ticket. */
  | 'EVENT'
  /** A membership plan or subscription period. */
  | 'MEMBERSHIP_PLAN'
  /** Anything else, including kinds added after this schema. */
  | 'OTHER';

/** State of a payment. `UNPAID` can become `PAID`, `EXPIRED`, `FAILED` or `CANCELED`; the others are final. Refunds are tracked separately in `refundingState`. */
export type PaymentState =
  /** Canceled before it was paid. */
  | 'CANCELED'
  /** Not paid before `expiredAt`; listed like any other row. */
  | 'EXPIRED'
  /** Rejected by the payment processor, e.g. a declined card. */
  | 'FAILED'
  /** Money received. */
  | 'PAID'
  /** Created and waiting for the money, e.g. ATM or convenience-store instructions issued but not yet paid. */
  | 'UNPAID';

/** Method of payment. Clients should treat unknown future values like `OTHER`. */
export type PaymentType =
  /** Apple Pay. */
  | 'APPLE_PAY'
  /** Transfer to a virtual bank account at an ATM or by online banking; instructions in `bankCode`, `bankName`, `codeNo`, `expiredAt`. */
  | 'ATM'
  /** Credit or debit card, paid in full or in installments (see `Payment.installment`). */
  | 'CREDIT_CARD'
  /** Convenience-store payment code entered at a store kiosk; instructions in `codeNo`, `expiredAt`. */
  | 'CVS'
  /** Convenience-store barcode scanned at the counter; instructions in `codeNo`, `expiredAt`. */
  | 'CVS_BARCODE'
  /** No money taken: the total was zero after adjustments. */
  | 'FREE'
  /** Google Pay. */
  | 'GOOGLE_PAY'
  /** LINE Pay. */
  | 'LINE_PAY'
  /** Any other method, including ones added after this schema. */
  | 'OTHER'
  /** Online bank transfer completed immediately with a card reader (WebATM). */
  | 'WEB_ATM';

/** Refund state of a payment. */
export type RefundingState =
  /** No refund was ever requested. */
  | 'NONE'
  /** Part of `amount` was refunded (`refundedAmount < amount`). */
  | 'PARTIALLY_REFUNDED'
  /** The refund was approved and is being paid back. */
  | 'PROCESSING'
  /** The whole `amount` was refunded. */
  | 'REFUNDED'
  /** The refund request was rejected; nothing was refunded by it. */
  | 'REJECTED'
  /** A refund was requested and awaits review (`refundRequestedAt` is set). */
  | 'REQUESTED';

export type MemberSyllabusQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type MemberSyllabusQuery = { viewer: { id: string, name: string | null, enrolledCourses: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ id: string, slug: string, title: string, coverImageUrl: string | null, expireDate: string | null, hasLifetimeAccess: boolean, lastWatchedLecture: { lectureId: string, positionSeconds: number } | null, detailProgress: { completedLecturesCount: number, totalLecturesCount: number, completionRate: number }, sections: Array<{ id: string, title: string, position: number, lectures: Array<{ id: string, title: string, state: LectureState, isLocked: boolean, unlockAt: string | null, duration: number }> }> }> } } };

export type MarkNotificationReadMutationVariables = Exact<{
  id: string | number;
}>;


export type MarkNotificationReadMutation = { markNotificationRead: { unreadNotificationCount: number, notification: { id: string, readAt: string | null } } };

export type PaymentHistoryQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type PaymentHistoryQuery = { viewer: { payments: { pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ id: string, tradeNo: string, amount: number, currency: string, paymentType: PaymentType | null, paymentState: PaymentState, paidAt: string | null, refundingState: RefundingState, refundedAmount: number, lineitems: Array<{ title: string, kind: PaymentLineItemKind, quantity: number, amount: number }> }> } } };

export type UpcomingMeetingQueryVariables = Exact<{
  now: number;
}>;


export type UpcomingMeetingQuery = { viewer: { consultingMeetings: { nodes: Array<{ id: string, kind: ConsultingMeetingKind, state: MeetingState, startAt: string, endAt: string, roomUrl: string, attendeesCount: number, service: { id: string, title: string } | null, studyGroup: { id: string, name: string } | null }> } } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const MemberSyllabusDocument = new TypedDocumentString(`
    query MemberSyllabus($first: Int = 20, $after: String) {
  viewer {
    id
    name
    enrolledCourses(first: $first, after: $after) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      nodes {
        id
        slug
        title
        coverImageUrl
        expireDate
        hasLifetimeAccess
        lastWatchedLecture {
          lectureId
          positionSeconds
        }
        detailProgress {
          completedLecturesCount
          totalLecturesCount
          completionRate
        }
        sections {
          id
          title
          position
          lectures {
            id
            title
            state
            isLocked
            unlockAt
            duration
          }
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<MemberSyllabusQuery, MemberSyllabusQueryVariables>;
export const MarkNotificationReadDocument = new TypedDocumentString(`
    mutation MarkNotificationRead($id: ID!) {
  markNotificationRead(id: $id) {
    notification {
      id
      readAt
    }
    unreadNotificationCount
  }
}
    `) as unknown as TypedDocumentString<MarkNotificationReadMutation, MarkNotificationReadMutationVariables>;
export const PaymentHistoryDocument = new TypedDocumentString(`
    query PaymentHistory($first: Int = 20, $after: String) {
  viewer {
    payments(first: $first, after: $after) {
      pageInfo {
        hasNextPage
        endCursor
      }
      nodes {
        id
        tradeNo
        amount
        currency
        paymentType
        paymentState
        paidAt
        refundingState
        refundedAmount
        lineitems {
          title
          kind
          quantity
          amount
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<PaymentHistoryQuery, PaymentHistoryQueryVariables>;
export const UpcomingMeetingDocument = new TypedDocumentString(`
    query UpcomingMeeting($now: Int!) {
  viewer {
    consultingMeetings(
      last: 1
      filter: {startedAfter: $now, state: [available, scheduled]}
    ) {
      nodes {
        id
        kind
        state
        startAt
        endAt
        roomUrl
        attendeesCount
        service {
          id
          title
        }
        studyGroup {
          id
          name
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<UpcomingMeetingQuery, UpcomingMeetingQueryVariables>;