import type Router from '@koa/router';
import type { Knex } from 'knex';
import { mountRefreshFloor } from './refresh.js';
import { mountSyllabusFloor } from './syllabus.js';
import { mountUserinfoFloor } from './userinfo.js';

/** Every floor route, mounted on the floors' server. */
export const FLOORS: Array<(router: Router, db: Knex) => void> = [mountUserinfoFloor, mountRefreshFloor, mountSyllabusFloor];
