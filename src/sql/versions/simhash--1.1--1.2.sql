-- simhash 1.1 -> 1.2 (ALTER EXTENSION simhash UPDATE TO '1.2')
\echo Use "ALTER EXTENSION simhash UPDATE TO '1.2'" to load this file. \quit

-- Each change of 1.2 has its own section below, headed "-- ===== <topic> =====", and brings an
-- installed 1.1 to exactly what a fresh 1.2 install creates (test/scripts/upgrade.sh checks it).
