// The integration conformance suite (interlock/testing) against the Strands Agents adapter, on SQLite and PostgreSQL.
import { integrationConformance } from '../src/testing/index.ts';
import { strandsDriver } from './support/conformance/strands.ts';

integrationConformance(strandsDriver);
