//! Vendor calls in the content store's database (migration 0016, table
//! `vendor_calls`; docs/vendors.md "Vendor spend"): the
//! [`VendorCallStore`] of both backends, one impl generic over them
//! ([`SqlStore`]).

use std::collections::BTreeMap;

use async_trait::async_trait;
use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Type};

use crate::backend::{Backend, SqlStore};
use crate::failure::database_failed;
use crate::vendor_call::{VendorCall, VendorCallStore, VendorCallTotal};
use mediaops_proto::error::ServiceError;

const INSERT: &str = "INSERT INTO vendor_calls (pack, route, operation_key, cost_per_call, currency, cache_hit, at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7)";

/// Calls per (operation, pack, currency, cache hit, price): the spend is
/// summed here, so both databases decode the same column types.
const GROUPS: &str = "SELECT operation_key, pack, currency, cache_hit, cost_per_call, COUNT(*) FROM vendor_calls \
     GROUP BY operation_key, pack, currency, cache_hit, cost_per_call";

/// How the vendor-call store is named in logs.
const WHAT: &str = "vendor-call store";

type Group = (String, String, String, bool, Option<f64>, i64);

#[async_trait]
impl<DB: Backend> VendorCallStore for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> DB::Arguments<'q>: IntoArguments<'q, DB>,
    for<'a> &'a str: Type<DB> + Encode<'a, DB>,
    usize: ColumnIndex<DB::Row>,
    String: Type<DB> + for<'r> Decode<'r, DB>,
    bool: Type<DB> + for<'a> Encode<'a, DB> + for<'r> Decode<'r, DB>,
    f64: Type<DB> + for<'a> Encode<'a, DB> + for<'r> Decode<'r, DB>,
    Option<f64>: for<'a> Encode<'a, DB>,
    i64: Type<DB> + for<'r> Decode<'r, DB>,
{
    async fn record_vendor_call(&self, call: &VendorCall) -> Result<(), ServiceError> {
        sqlx::query(&Self::sql(INSERT))
            .bind(call.pack.as_str())
            .bind(call.route.as_str())
            .bind(call.operation_key.as_str())
            .bind(call.cost_per_call)
            .bind(call.currency.as_str())
            .bind(call.cache_hit)
            .bind(call.at.as_str())
            .execute(&self.pool)
            .await
            .map_err(database_failed(WHAT))?;
        Ok(())
    }

    async fn vendor_call_totals(&self) -> Result<Vec<VendorCallTotal>, ServiceError> {
        let groups: Vec<Group> =
            sqlx::query_as(&Self::sql(GROUPS)).fetch_all(&self.pool).await.map_err(database_failed(WHAT))?;
        let mut totals: BTreeMap<(String, String, String), VendorCallTotal> = BTreeMap::new();
        for (operation_key, pack, currency, cache_hit, cost, count) in groups {
            let total = totals.entry((operation_key.clone(), pack.clone(), currency.clone())).or_insert_with(|| {
                VendorCallTotal { operation_key, pack, currency, calls: 0, cache_hits: 0, spend: 0.0 }
            });
            if cache_hit {
                total.cache_hits += count;
            } else {
                total.calls += count;
                total.spend += cost.unwrap_or(0.0) * count as f64;
            }
        }
        Ok(totals.into_values().collect())
    }
}
