// The integration conformance suite (interlock/testing) against the Mastra adapter, on SQLite and PostgreSQL.
import { integrationConformance } from '../src/testing/index.ts';
import { mastraDriver } from './support/conformance/mastra.ts';

integrationConformance(mastraDriver);
