// `npm start` runs in production mode unless NODE_ENV says otherwise (`npm run dev` in development mode): graphql-js
// reads NODE_ENV when it is first loaded and otherwise adds development-only checks to every field it resolves.
// Imported first by src/main.ts for that reason.
process.env.NODE_ENV ??= process.env.npm_lifecycle_event === 'dev' ? 'development' : 'production';
