/** The member GraphQL types and example operations of variant B (`/account/graphql`), from graphql-codegen's client preset. */
export * from './generated/member-b/graphql.js';
export { graphql } from './generated/member-b/gql.js';
