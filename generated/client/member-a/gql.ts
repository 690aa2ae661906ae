/* eslint-disable */
import * as types from './graphql.js';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query MemberSyllabus($first: Int = 20, $after: String) {\n  viewer {\n    id\n    name\n    enrolledCourses(first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      nodes {\n        id\n        slug\n        title\n        coverImageUrl\n        expireDate\n        hasLifetimeAccess\n        lastWatchedLecture {\n          lectureId\n          positionSeconds\n        }\n        detailProgress {\n          completedLecturesCount\n          totalLecturesCount\n          completionRate\n        }\n        sections {\n          id\n          title\n          position\n          lectures {\n            id\n            title\n            state\n            isLocked\n            unlockAt\n            duration\n          }\n        }\n      }\n    }\n  }\n}": typeof types.MemberSyllabusDocument,
    "mutation MarkNotificationRead($id: ID!) {\n  markNotificationRead(id: $id) {\n    notification {\n      id\n      readAt\n    }\n    unreadNotificationCount\n  }\n}": typeof types.MarkNotificationReadDocument,
    "query PaymentHistory($first: Int = 20, $after: String) {\n  viewer {\n    payments(first: $first, after: $after) {\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      nodes {\n        id\n        tradeNo\n        amount\n        currency\n        paymentType\n        paymentState\n        paidAt\n        refundingState\n        refundedAmount\n        lineitems {\n          title\n          kind\n          quantity\n          amount\n        }\n      }\n    }\n  }\n}": typeof types.PaymentHistoryDocument,
    "query UpcomingMeeting($now: Int!) {\n  viewer {\n    consultingMeetings(\n      last: 1\n      filter: {startedAfter: $now, state: [available, scheduled]}\n    ) {\n      nodes {\n        id\n        kind\n        state\n        startAt\n        endAt\n        roomUrl\n        attendeesCount\n        service {\n          id\n          title\n        }\n        studyGroup {\n          id\n          name\n        }\n      }\n    }\n  }\n}": typeof types.UpcomingMeetingDocument,
};
const documents: Documents = {
    "query MemberSyllabus($first: Int = 20, $after: String) {\n  viewer {\n    id\n    name\n    enrolledCourses(first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      nodes {\n        id\n        slug\n        title\n        coverImageUrl\n        expireDate\n        hasLifetimeAccess\n        lastWatchedLecture {\n          lectureId\n          positionSeconds\n        }\n        detailProgress {\n          completedLecturesCount\n          totalLecturesCount\n          completionRate\n        }\n        sections {\n          id\n          title\n          position\n          lectures {\n            id\n            title\n            state\n            isLocked\n            unlockAt\n            duration\n          }\n        }\n      }\n    }\n  }\n}": types.MemberSyllabusDocument,
    "mutation MarkNotificationRead($id: ID!) {\n  markNotificationRead(id: $id) {\n    notification {\n      id\n      readAt\n    }\n    unreadNotificationCount\n  }\n}": types.MarkNotificationReadDocument,
    "query PaymentHistory($first: Int = 20, $after: String) {\n  viewer {\n    payments(first: $first, after: $after) {\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      nodes {\n        id\n        tradeNo\n        amount\n        currency\n        paymentType\n        paymentState\n        paidAt\n        refundingState\n        refundedAmount\n        lineitems {\n          title\n          kind\n          quantity\n          amount\n        }\n      }\n    }\n  }\n}": types.PaymentHistoryDocument,
    "query UpcomingMeeting($now: Int!) {\n  viewer {\n    consultingMeetings(\n      last: 1\n      filter: {startedAfter: $now, state: [available, scheduled]}\n    ) {\n      nodes {\n        id\n        kind\n        state\n        startAt\n        endAt\n        roomUrl\n        attendeesCount\n        service {\n          id\n          title\n        }\n        studyGroup {\n          id\n          name\n        }\n      }\n    }\n  }\n}": types.UpcomingMeetingDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query MemberSyllabus($first: Int = 20, $after: String) {\n  viewer {\n    id\n    name\n    enrolledCourses(first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      nodes {\n        id\n        slug\n        title\n        coverImageUrl\n        expireDate\n        hasLifetimeAccess\n        lastWatchedLecture {\n          lectureId\n          positionSeconds\n        }\n        detailProgress {\n          completedLecturesCount\n          totalLecturesCount\n          completionRate\n        }\n        sections {\n          id\n          title\n          position\n          lectures {\n            id\n            title\n            state\n            isLocked\n            unlockAt\n            duration\n          }\n        }\n      }\n    }\n  }\n}"): typeof import('./graphql.js').MemberSyllabusDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation MarkNotificationRead($id: ID!) {\n  markNotificationRead(id: $id) {\n    notification {\n      id\n      readAt\n    }\n    unreadNotificationCount\n  }\n}"): typeof import('./graphql.js').MarkNotificationReadDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query PaymentHistory($first: Int = 20, $after: String) {\n  viewer {\n    payments(first: $first, after: $after) {\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      nodes {\n        id\n        tradeNo\n        amount\n        currency\n        paymentType\n        paymentState\n        paidAt\n        refundingState\n        refundedAmount\n        lineitems {\n          title\n          kind\n          quantity\n          amount\n        }\n      }\n    }\n  }\n}"): typeof import('./graphql.js').PaymentHistoryDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query UpcomingMeeting($now: Int!) {\n  viewer {\n    consultingMeetings(\n      last: 1\n      filter: {startedAfter: $now, state: [available, scheduled]}\n    ) {\n      nodes {\n        id\n        kind\n        state\n        startAt\n        endAt\n        roomUrl\n        attendeesCount\n        service {\n          id\n          title\n        }\n        studyGroup {\n          id\n          name\n        }\n      }\n    }\n  }\n}"): typeof import('./graphql.js').UpcomingMeetingDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
