-- simhash 1.0 -> 1.1 (ALTER EXTENSION simhash UPDATE TO '1.1')
\echo Use "ALTER EXTENSION simhash UPDATE TO '1.1'" to load this file. \quit
