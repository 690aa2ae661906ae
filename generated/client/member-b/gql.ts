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
};
const documents: Documents = {
    "query MemberSyllabus($first: Int = 20, $after: String) {\n  viewer {\n    id\n    name\n    enrolledCourses(first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      nodes {\n        id\n        slug\n        title\n        coverImageUrl\n        expireDate\n        hasLifetimeAccess\n        lastWatchedLecture {\n          lectureId\n          positionSeconds\n        }\n        detailProgress {\n          completedLecturesCount\n          totalLecturesCount\n          completionRate\n        }\n        sections {\n          id\n          title\n          position\n          lectures {\n            id\n            title\n            state\n            isLocked\n            unlockAt\n            duration\n          }\n        }\n      }\n    }\n  }\n}": types.MemberSyllabusDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query MemberSyllabus($first: Int = 20, $after: String) {\n  viewer {\n    id\n    name\n    enrolledCourses(first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      nodes {\n        id\n        slug\n        title\n        coverImageUrl\n        expireDate\n        hasLifetimeAccess\n        lastWatchedLecture {\n          lectureId\n          positionSeconds\n        }\n        detailProgress {\n          completedLecturesCount\n          totalLecturesCount\n          completionRate\n        }\n        sections {\n          id\n          title\n          position\n          lectures {\n            id\n            title\n            state\n            isLocked\n            unlockAt\n            duration\n          }\n        }\n      }\n    }\n  }\n}"): typeof import('./graphql.js').MemberSyllabusDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
