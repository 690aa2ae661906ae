/** The member GraphQL types and example operations of variant A (`/member/graphql`), from graphql-codegen's client preset. */
export * from './generated/member-a/graphql.js';
export { graphql } from './generated/member-a/gql.js';
