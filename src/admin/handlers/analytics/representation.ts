import type { components } from '../../../../generated/admin-api.js';
import type { AnalyticsSummary } from '../../../analytics/summary.js';

export type AnalyticsSummaryRepresentation = components['schemas']['AnalyticsSummary'];

export function analyticsSummaryRepresentation(summary: AnalyticsSummary): AnalyticsSummaryRepresentation {
  return {
    from: summary.from.toISOString(),
    to: summary.to.toISOString(),
    generatedAt: summary.generatedAt.toISOString(),
    members: summary.members,
    courses: summary.courses,
    enrollments: summary.enrollments,
    lectureCompletions: summary.lectureCompletions,
    ordersByState: summary.ordersByState,
    revenue: summary.revenue,
    topCourses: summary.topCourses,
  };
}
