/**
 * The site import document, as published in docs/import.schema.json (format version 1).
 * Hand-written to match the schema: change both together (test/import.test.ts validates the demo document,
 * src/demo/demo-school.json, against the schema, and the tests that build documents are typed with these interfaces).
 *
 * Times are RFC 3339 strings with an offset; money is integer minor units plus an ISO 4217 code.
 * Optional lists may be omitted (empty); optional fields take their defaults (see the schema's descriptions).
 */

/** RFC 3339 date-time with `Z` or a numeric offset. */
export type IsoDateTime = string;
export type Email = string;
export type ExternalId = string;

export interface Money {
  /** Integer minor units. */
  amount: number;
  currency: string;
}

export type Role = 'owner' | 'operator' | 'staff' | 'lecturer' | 'student';
export type MeetingState = 'available' | 'scheduled' | 'canceled';
/** 0 = Sunday … 6 = Saturday (JavaScript's getDay()). */
export type Weekday = 0 | 1 | 2 | 3 | 4 | 5 | 6;
export type NotificationKind =
  | 'course_update'
  | 'lecture_unlocked'
  | 'meeting_reminder'
  | 'meeting_changed'
  | 'payment'
  | 'event_reminder'
  | 'announcement';

export interface ImportDocument {
  $schema?: string;
  formatVersion: 1;
  site: SiteInput;
  users?: UserInput[];
  lecturers?: LecturerInput[];
  courses?: CourseInput[];
  enrollments?: EnrollmentInput[];
  digitalProducts?: DigitalProductInput[];
  coupons?: CouponInput[];
  membershipPlans?: MembershipPlanInput[];
  subscriptions?: SubscriptionInput[];
  consultingServices?: ConsultingServiceInput[];
  studyGroups?: StudyGroupInput[];
  events?: EventInput[];
  payments?: PaymentInput[];
  notifications?: NotificationInput[];
  notificationSubscriptions?: NotificationSubscriptionInput[];
  oauthClients?: OAuthClientInput[];
  vendorPlatforms?: VendorPlatformInput[];
  posts?: PostInput[];
  pages?: PageInput[];
}

export interface SiteInput {
  origin: string;
  name: string;
  subdomain?: string;
  description?: string | null;
  timezone?: string;
  defaultCurrency?: string;
  contactEmail?: string | null;
  mcpConnectionsEnabled?: boolean;
  openRegistration?: boolean;
  metadataDocumentHosts?: string[];
  appearance?: AppearanceInput;
}

export interface AppearanceInput {
  primaryColor?: string | null;
  accentColor?: string | null;
  logoUrl?: string | null;
  faviconUrl?: string | null;
  coverImageUrl?: string | null;
  customCss?: string | null;
}

export interface UserInput {
  email: Email;
  name: string;
  avatarUrl?: string | null;
  /** Plain text, at least 8 characters; hashed on import. */
  password?: string;
  /** `scrypt$N$r$p$salt$hash`, stored as given. */
  passwordHash?: string;
  roles: Role[];
}

export interface LecturerInput {
  user: Email;
  displayName: string;
  bio?: string | null;
  avatarUrl?: string | null;
}

export interface CourseInput {
  externalId: ExternalId;
  slug: string;
  title: string;
  description?: string | null;
  coverImageUrl?: string | null;
  status: 'draft' | 'published' | 'archived';
  price?: Money | null;
  /** Lecturer emails in display order. */
  lecturers?: Email[];
  sections?: SectionInput[];
}

export interface SectionInput {
  externalId: ExternalId;
  title: string;
  lectures?: LectureInput[];
}

export interface LectureInput {
  externalId: ExternalId;
  title: string;
  kind: 'video' | 'text' | 'audio' | 'quiz' | 'file';
  durationSeconds: number;
  locked?: boolean;
  unlockAt?: IsoDateTime | null;
  isPreview?: boolean;
}

export type LectureState = 'unread' | 'read' | 'completed';

export interface EnrollmentInput {
  externalId: ExternalId;
  /** Course externalId. */
  course: ExternalId;
  user: Email;
  enrolledAt: IsoDateTime;
  expiresAt?: IsoDateTime | null;
  hasLifetimeAccess: boolean;
  source?: 'purchase' | 'grant' | 'import' | 'membership';
  lastWatched?: { lecture: ExternalId; positionSeconds: number; at: IsoDateTime } | null;
  progress?: LectureProgressInput[];
}

export interface LectureProgressInput {
  /** Lecture externalId within the enrollment's course. */
  lecture: ExternalId;
  state: LectureState;
  positionSeconds?: number;
  completedAt?: IsoDateTime | null;
}

export interface DigitalProductInput {
  externalId: ExternalId;
  slug: string;
  title: string;
  description?: string | null;
  kind: 'ebook' | 'audio' | 'video' | 'file' | 'template';
  coverImageUrl?: string | null;
  downloadUrl?: string | null;
  status: 'draft' | 'published' | 'archived';
  price?: Money | null;
  owners?: Array<{ user: Email; acquiredAt: IsoDateTime; expiresAt?: IsoDateTime | null }>;
}

export interface CouponInput {
  code: string;
  title?: string | null;
  discountKind: 'percent' | 'amount';
  percentOff?: number;
  amountOff?: Money;
  maxRedemptions?: number | null;
  redeemedCount?: number;
  startsAt?: IsoDateTime | null;
  endsAt?: IsoDateTime | null;
  active?: boolean;
}

export interface MembershipPlanInput {
  externalId: ExternalId;
  name: string;
  description?: string | null;
  price: Money;
  billingInterval: 'month' | 'year';
  active?: boolean;
}

export interface SubscriptionInput {
  /** Membership plan externalId. */
  plan: ExternalId;
  user: Email;
  state: 'trialing' | 'active' | 'past_due' | 'canceled' | 'expired';
  startedAt: IsoDateTime;
  currentPeriodStart: IsoDateTime;
  currentPeriodEnd: IsoDateTime;
  canceledAt?: IsoDateTime | null;
}

export interface ConsultingServiceInput {
  externalId: ExternalId;
  title: string;
  description?: string | null;
  durationMinutes: number;
  capacity: number;
  price?: Money | null;
  status?: 'draft' | 'published' | 'archived';
  /** Course externalIds. */
  courses?: ExternalId[];
  slots?: ConsultingSlotInput[];
  meetings?: ConsultingMeetingInput[];
}

export interface ConsultingSlotInput {
  externalId: ExternalId;
  weekday: Weekday;
  /** `HH:MM` */
  startTime: string;
  durationMinutes: number;
  timezone: string;
  capacity: number;
  host?: Email | null;
  validFrom?: IsoDateTime | null;
  validUntil?: IsoDateTime | null;
}

export interface ConsultingMeetingInput {
  externalId: ExternalId;
  /** Slot externalId within the service. */
  slot?: ExternalId | null;
  startsAt: IsoDateTime;
  endsAt: IsoDateTime;
  state: MeetingState;
  capacity: number;
  roomUrl?: string | null;
  confirmedAt?: IsoDateTime | null;
  confirmedBy?: Email | null;
  canceledAt?: IsoDateTime | null;
  cancelReason?: string | null;
  seats?: Array<{ user: Email; reservedAt: IsoDateTime; canceledAt?: IsoDateTime | null }>;
}

export interface StudyGroupInput {
  externalId: ExternalId;
  name: string;
  description?: string | null;
  /** Course externalId. */
  course?: ExternalId | null;
  /** Consulting service externalId. */
  service?: ExternalId | null;
  members?: Array<{ user: Email; joinedAt: IsoDateTime }>;
  sessions?: StudyGroupSessionInput[];
  meetings?: StudyGroupMeetingInput[];
}

export interface StudyGroupSessionInput {
  externalId: ExternalId;
  weekday: Weekday;
  startTime: string;
  durationMinutes: number;
  timezone: string;
  validFrom?: IsoDateTime | null;
  validUntil?: IsoDateTime | null;
}

export interface StudyGroupMeetingInput {
  externalId: ExternalId;
  /** Session externalId within the group. */
  session?: ExternalId | null;
  startsAt: IsoDateTime;
  endsAt: IsoDateTime;
  state: MeetingState;
  capacity?: number;
  roomUrl?: string | null;
  canceledAt?: IsoDateTime | null;
  cancelReason?: string | null;
}

export interface EventInput {
  externalId: ExternalId;
  slug: string;
  title: string;
  description?: string | null;
  startsAt: IsoDateTime;
  endsAt: IsoDateTime;
  timezone?: string;
  format: 'online' | 'venue';
  location?: string | null;
  onlineUrl?: string | null;
  capacity?: number | null;
  status?: 'draft' | 'published' | 'canceled';
  isPublic?: boolean;
  price?: Money | null;
  registrations?: Array<{
    user: Email;
    state: 'registered' | 'canceled' | 'attended' | 'no_show';
    registeredAt: IsoDateTime;
    ticketCode?: string | null;
    canceledAt?: IsoDateTime | null;
  }>;
}

export type PaymentType = 'credit_card' | 'atm' | 'convenience_store' | 'line_pay' | 'apple_pay' | 'google_pay' | 'free';
export type PaymentState = 'unpaid' | 'paid' | 'failed' | 'expired' | 'canceled';
export type RefundState = 'requested' | 'processing' | 'refunded' | 'partially_refunded' | 'rejected';
export type LineItemKind = 'course' | 'digital_product' | 'consulting' | 'event' | 'membership_plan' | 'other';

export interface PaymentInput {
  tradeNo: string;
  user: Email;
  amount: number;
  currency: string;
  /** null: abandoned before a method was chosen. */
  paymentType: PaymentType | null;
  paymentState: PaymentState;
  paidAt?: IsoDateTime | null;
  createdAt: IsoDateTime;
  expiredAt?: IsoDateTime | null;
  bankCode?: string | null;
  bankName?: string | null;
  codeNo?: string | null;
  installment?: { count: number; amount: number; interval: 'week' | 'month' } | null;
  refund?: { state: RefundState; amount: number; requestedAt?: IsoDateTime | null; refundedAt?: IsoDateTime | null } | null;
  lineItems?: LineItemInput[];
  adjustments?: AdjustmentInput[];
  invoice?: InvoiceInput;
}

export interface LineItemInput {
  kind: LineItemKind;
  /** externalId in the section named by kind; none for `other`. */
  item?: ExternalId | null;
  title: string;
  quantity?: number;
  unitAmount: number;
  amount: number;
}

export interface AdjustmentInput {
  kind: 'coupon' | 'promotion';
  code?: string | null;
  title: string;
  /** Negative for discounts. */
  amount: number;
}

export interface InvoiceInput {
  invoiceNo?: string | null;
  kind: 'personal' | 'company' | 'donation' | 'mobile_barcode' | 'citizen_certificate' | 'member_carrier';
  title?: string | null;
  taxId?: string | null;
  carrier?: string | null;
  status: 'pending' | 'issued' | 'voided';
  issuedAt?: IsoDateTime | null;
}

export interface NotificationInput {
  externalId: ExternalId;
  user: Email;
  kind: NotificationKind;
  title: string;
  body?: string | null;
  url?: string | null;
  createdAt: IsoDateTime;
  readAt?: IsoDateTime | null;
}

export interface NotificationSubscriptionInput {
  user: Email;
  kind: NotificationKind;
  channel: 'in_app' | 'email' | 'push';
  enabled: boolean;
}

export interface OAuthClientInput {
  clientId: string;
  name: string;
  audience: 'member' | 'operator';
  confidential: boolean;
  /** Only for confidential clients. */
  clientSecret?: string;
  scopes: string[];
  redirectUris: string[];
  kind?: 'operator_created' | 'vendor_platform' | 'metadata_document';
  reviewed?: boolean;
  createdBy?: Email | null;
}

export interface VendorPlatformInput {
  clientName: string;
  /** clientId of an OAuth client of this document. */
  client: string;
}

export interface PostInput {
  slug: string;
  title: string;
  body: string;
  author?: Email | null;
  status?: 'draft' | 'published';
  publishedAt?: IsoDateTime | null;
}

export interface PageInput {
  slug: string;
  title: string;
  body: string;
  status?: 'draft' | 'published';
}
