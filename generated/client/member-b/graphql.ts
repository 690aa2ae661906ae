/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** The viewer's progress on one lecture. Values are spelled in lowercase. */
export type LectureState =
  /** The viewer has completed the lecture. */
  | 'completed'
  /** The viewer has opened the lecture but not completed it. */
  | 'read'
  /** The viewer has not opened the lecture. */
  | 'unread';

export type MemberSyllabusQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type MemberSyllabusQuery = { viewer: { id: string, name: string | null, enrolledCourses: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ id: string, slug: string, title: string, coverImageUrl: string | null, expireDate: string | null, hasLifetimeAccess: boolean, lastWatchedLecture: { lectureId: string, positionSeconds: number } | null, detailProgress: { completedLecturesCount: number, totalLecturesCount: number, completionRate: number }, sections: Array<{ id: string, title: string, position: number, lectures: Array<{ id: string, title: string, state: LectureState, isLocked: boolean, unlockAt: string | null, duration: number }> }> }> } } };

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