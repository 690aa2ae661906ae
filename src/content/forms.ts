import { joinSiteProfile, profileColumn } from '../accounts/site-profiles.js';
import type { Knex } from 'knex';
import { requireDate, type Database } from '../db/connection.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { NotFoundError } from '../shared/errors.js';
import type { Queryable } from '../db/queries.js';
import type { UserRef } from './shared.js';

/**
 * The site's forms and their responses, read by operators (the admin API's /forms). Fields and answers are JSON in
 * text columns (`forms.fields`: an array of `{ name, label, type, required }`; `form_responses.answers`: an object of
 * field name → value); they are parsed leniently, so one odd row never breaks a listing.
 */

export interface FormField {
  name: string;
  label: string;
  type: string;
  required: boolean;
}

export interface Form {
  id: number;
  title: string;
  fields: FormField[];
  responseCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export type AnswerValue = string | number | boolean | string[] | null;

export interface FormAnswer {
  name: string;
  /** The field's label; null when the form no longer has the field. */
  label: string | null;
  value: AnswerValue;
}

export interface FormResponse {
  id: number;
  formId: number;
  respondent: UserRef | null;
  answers: FormAnswer[];
  submittedAt: Date;
}

interface FormRow {
  id: number;
  title: string;
  fields: unknown;
  response_count: number | string;
  created_at: unknown;
  updated_at: unknown;
}

interface ResponseRow {
  id: number;
  form_id: number;
  user_id: number | null;
  respondent_name: string | null;
  answers: unknown;
  submitted_at: unknown;
}

function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields of a form, in order; entries without a name are skipped. */
export function parseFields(raw: unknown): FormField[] {
  const parsed = parseJson(raw);
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((entry): FormField[] => {
    if (!isRecord(entry) || typeof entry.name !== 'string' || entry.name === '') return [];
    return [
      {
        name: entry.name,
        label: typeof entry.label === 'string' ? entry.label : entry.name,
        type: typeof entry.type === 'string' && entry.type !== '' ? entry.type : 'text',
        required: Boolean(entry.required),
      },
    ];
  });
}

function answerValue(value: unknown): AnswerValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Array.isArray(value)) return value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
  return JSON.stringify(value);
}

/** The answers of a response: the form's fields first, in their order, then answers to fields the form no longer has. */
export function parseAnswers(raw: unknown, fields: readonly FormField[]): FormAnswer[] {
  const parsed = parseJson(raw);
  const byName = new Map<string, unknown>();
  if (isRecord(parsed)) for (const [name, value] of Object.entries(parsed)) byName.set(name, value);
  else if (Array.isArray(parsed)) {
    for (const entry of parsed) if (isRecord(entry) && typeof entry.name === 'string') byName.set(entry.name, entry.value);
  }
  const answers: FormAnswer[] = [];
  for (const field of fields) {
    if (!byName.has(field.name)) continue;
    answers.push({ name: field.name, label: field.label, value: answerValue(byName.get(field.name)) });
    byName.delete(field.name);
  }
  for (const [name, value] of byName) answers.push({ name, label: null, value: answerValue(value) });
  return answers;
}

function formFromRow(row: FormRow): Form {
  return {
    id: Number(row.id),
    title: row.title,
    fields: parseFields(row.fields),
    responseCount: Number(row.response_count),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

function formsOf(db: Queryable, siteId: number): Knex.QueryBuilder {
  const responses = db('form_responses').count('*').whereRaw('?? = ??', ['form_responses.form_id', 'forms.id']);
  return db('forms').where('forms.site_id', siteId).select('forms.id', 'forms.title', 'forms.fields', 'forms.created_at', 'forms.updated_at', responses.as('response_count'));
}

export async function requireForm(db: Queryable, siteId: number, formId: number): Promise<Form> {
  const row = (await formsOf(db, siteId).andWhere('forms.id', formId).first()) as FormRow | undefined;
  if (!row) throw new NotFoundError(`This site has no form ${formId}.`);
  return formFromRow(row);
}

const FORM_SORTS: SortColumns<'createdAt' | 'updatedAt' | 'title'> = {
  createdAt: { column: 'forms.created_at', type: 'time' },
  updatedAt: { column: 'forms.updated_at', type: 'time' },
  title: { column: 'forms.title', type: 'string' },
};

export async function listForms(db: Database, siteId: number, query: ListQuery): Promise<{ forms: Form[]; nextCursor: string | null }> {
  const page = await listPage<FormRow, keyof typeof FORM_SORTS>(formsOf(db, siteId), query, { sorts: FORM_SORTS, defaultSort: '-createdAt', filters: {}, idColumn: 'forms.id' });
  return { forms: page.rows.map(formFromRow), nextCursor: page.nextCursor };
}

const RESPONSE_SORTS: SortColumns<'submittedAt'> = {
  submittedAt: { column: 'form_responses.submitted_at', type: 'time' },
};

/** One page of a form's responses (404 when the form is not this site's), newest first unless `sort` says otherwise. */
export async function listFormResponses(db: Database, siteId: number, formId: number, query: ListQuery): Promise<{ responses: FormResponse[]; nextCursor: string | null }> {
  const form = await requireForm(db, siteId, formId);
  const builder = joinSiteProfile(db('form_responses').leftJoin('users', 'users.id', 'form_responses.user_id'), siteId, 'form_responses.user_id')
    .where('form_responses.form_id', form.id)
    .select('form_responses.id', 'form_responses.form_id', 'form_responses.user_id', profileColumn(db, 'name', 'respondent_name'), 'form_responses.answers', 'form_responses.submitted_at');
  const page = await listPage<ResponseRow, keyof typeof RESPONSE_SORTS>(builder, query, { sorts: RESPONSE_SORTS, defaultSort: '-submittedAt', filters: { formId }, idColumn: 'form_responses.id' });
  return {
    responses: page.rows.map((row) => ({
      id: Number(row.id),
      formId: Number(row.form_id),
      respondent: row.user_id === null || row.respondent_name === null ? null : { id: Number(row.user_id), name: row.respondent_name },
      answers: parseAnswers(row.answers, form.fields),
      submittedAt: requireDate(row.submitted_at),
    })),
    nextCursor: page.nextCursor,
  };
}
