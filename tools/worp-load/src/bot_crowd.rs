//! `--bot-crowd N --bot NAME`: does a crowd of games against a bot that thinks slow the
//! players down? Each round measures the HTTP load twice, players alone (the anchor)
//! and then while N backgammon games against the bot are played: a few players answer
//! every bot move in them as soon as their inbox shows it is their turn, so the bot
//! runner is busy throughout. Reported: the load's p99 and rate in each, and the bots'
//! moves meanwhile.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::{Args, Out};

/// Games each crowd player plays at once.
const GAMES_EACH: usize = 100;

/// The crowd: its players' tokens, and the moves answered and made by the bots.
pub(crate) struct Crowd {
    http: reqwest::Client,
    url: String,
    bot: String,
    tokens: Vec<(String, String)>,
    answered: AtomicU64,
    stop: AtomicBool,
}

async fn send(req: reqwest::RequestBuilder) -> Result<reqwest::Response, String> {
    loop {
        let resp = req
            .try_clone()
            .ok_or("a request that cannot be retried")?
            .send()
            .await
            .map_err(|e| e.to_string())?;
        if resp.status() != 429 && resp.status() != 503 {
            return Ok(resp);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

impl Crowd {
    /// Registers the players and starts `n` games against `args.bot`.
    pub(crate) async fn set_up(args: &Args, n: usize, out: &Out) -> Result<Arc<Crowd>, String> {
        let http = reqwest::Client::new();
        let url = args.url.trim_end_matches('/').to_owned();
        let mut tokens = Vec::new();
        for i in 0..n.div_ceil(GAMES_EACH) {
            let resp = send(http.post(format!("{url}/v1/players")).json(&json!({
                "name": format!("crowd {i} {}", std::process::id())
            })))
            .await?;
            let body: Value = resp.json().await.map_err(|e| e.to_string())?;
            let (Some(token), Some(id)) = (body["token"].as_str(), body["id"].as_str()) else {
                return Err(format!("a crowd player was not registered: {body}"));
            };
            tokens.push((token.to_owned(), id.to_owned()));
        }
        let crowd = Arc::new(Crowd {
            http,
            url,
            bot: args.bot.clone(),
            tokens,
            answered: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        });
        for k in 0..n {
            crowd.new_game(k % crowd.tokens.len()).await?;
        }
        out.line(format!(
            "  {n} backgammon games against {} started by {} players",
            crowd.bot,
            crowd.tokens.len()
        ));
        Ok(crowd)
    }

    async fn new_game(&self, player: usize) -> Result<(), String> {
        let (token, id) = &self.tokens[player];
        let resp = send(
            self.http
                .post(format!("{}/v1/games", self.url))
                .bearer_auth(token)
                .json(&json!({"variant": "backgammon", "seats": [id, {"bot": self.bot}]})),
        )
        .await?;
        if resp.status() != 201 {
            return Err(format!("a crowd game: HTTP {}", resp.status()));
        }
        Ok(())
    }

    /// Plays player `i`'s side of its games until told to stop: each game the inbox
    /// shows awaiting it gets its first legal move; a finished game is replaced.
    async fn drive(self: Arc<Crowd>, i: usize) -> Result<(), String> {
        let token = self.tokens[i].0.clone();
        while !self.stop.load(Ordering::Relaxed) {
            let inbox: Value = send(
                self.http
                    .get(format!(
                        "{}/v1/players/me/games?my_turn=true&limit=200",
                        self.url
                    ))
                    .bearer_auth(&token),
            )
            .await?
            .json()
            .await
            .map_err(|e| e.to_string())?;
            let games = inbox["games"].as_array().cloned().unwrap_or_default();
            if games.is_empty() {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            for g in games {
                if self.stop.load(Ordering::Relaxed) {
                    break;
                }
                let Some(id) = g["id"].as_str() else { continue };
                let game: Value = send(self.http.get(format!("{}/v1/games/{id}", self.url)))
                    .await?
                    .json()
                    .await
                    .map_err(|e| e.to_string())?;
                let moves = game["legal_moves"].as_array().cloned().unwrap_or_default();
                let Some(mv) = moves.iter().find(|m| m.get("resign").is_none()) else {
                    continue;
                };
                let resp = send(
                    self.http
                        .post(format!("{}/v1/games/{id}/moves", self.url))
                        .bearer_auth(&token)
                        .json(&json!({"move": mv})),
                )
                .await?;
                if resp.status() == 200 {
                    self.answered.fetch_add(1, Ordering::Relaxed);
                    let after: Value = resp.json().await.map_err(|e| e.to_string())?;
                    if after["status"] == "finished" {
                        self.new_game(i).await?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Runs `measure` while the crowd plays; returns what it measured and how many
    /// moves the crowd's players answered the bots with meanwhile.
    pub(crate) async fn while_playing<T>(
        self: &Arc<Crowd>,
        measure: impl std::future::Future<Output = Result<T, String>>,
    ) -> Result<(T, u64, Duration), String> {
        self.stop.store(false, Ordering::Relaxed);
        let before = self.answered.load(Ordering::Relaxed);
        let drivers: Vec<_> = (0..self.tokens.len())
            .map(|i| tokio::spawn(self.clone().drive(i)))
            .collect();
        let started = Instant::now();
        let measured = measure.await;
        let took = started.elapsed();
        self.stop.store(true, Ordering::Relaxed);
        for d in drivers {
            d.await.map_err(|e| e.to_string())??;
        }
        Ok((
            measured?,
            self.answered.load(Ordering::Relaxed) - before,
            took,
        ))
    }
}
