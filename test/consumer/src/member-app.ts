import { MemberSyllabusDocument, PaymentHistoryDocument, UpcomingMeetingDocument, type LectureState } from '../../../generated/client/member-a/graphql.js';
import { execute } from './graphql-client.js';

/** What a member app's course page renders: typed end to end from schema/operations/syllabus.graphql. */
export interface CoursePage {
  title: string;
  progress: string;
  lectures: Array<{ title: string; state: LectureState; locked: boolean; minutes: number }>;
}

export async function loadCoursePages(origin: string, token: string): Promise<CoursePage[]> {
  const data = await execute(`${origin}/member/graphql`, token, MemberSyllabusDocument, { first: 10 });
  return data.viewer.enrolledCourses.nodes.map((course) => ({
    title: course.title,
    progress: `${course.detailProgress.completedLecturesCount}/${course.detailProgress.totalLecturesCount}`,
    lectures: course.sections.flatMap((section) =>
      section.lectures.map((lecture) => ({ title: lecture.title, state: lecture.state, locked: lecture.isLocked, minutes: Math.round(lecture.duration / 60) })),
    ),
  }));
}

export async function loadNextMeetingStart(origin: string, token: string, now: Date): Promise<string | null> {
  const data = await execute(`${origin}/member/graphql`, token, UpcomingMeetingDocument, { now: Math.floor(now.getTime() / 1000) });
  return data.viewer.consultingMeetings.nodes[0]?.startAt ?? null;
}

/** Billing history lines: amounts stay integers in minor units until they are formatted. */
export async function loadPaymentLines(origin: string, token: string): Promise<string[]> {
  const data = await execute(`${origin}/member/graphql`, token, PaymentHistoryDocument, {});
  return data.viewer.payments.nodes.map((payment) => `${payment.tradeNo} ${payment.paymentState} ${payment.amount} ${payment.currency}`);
}
