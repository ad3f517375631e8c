//! A pull request's or an issue's comments (the issue-comment endpoints):
//! every page of them, and one comment created or updated. Used by
//! `comment`.

use serde::Deserialize;
use serde_json::json;

use super::client::{Api, Write};
use super::error::{ApiError, Permission};
use super::policy::Asked;
use crate::validate::RepoName;

/// Pages of 100 comments read at most: 10,000 comments.
const MAX_PAGES: usize = 100;

/// The fields of an issue comment `comment` reads.
#[derive(Debug, Clone, Deserialize)]
pub struct IssueComment {
    pub id: u64,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub user: Option<User>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct User {
    pub login: String,
}

/// Where the comment goes. A pull request's conversation and an issue are
/// the same endpoints, but the token needs another permission for each
/// (`pull-requests` or `issues`), and a message must name the right one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Thread {
    PullRequest,
    Issue,
}

impl Thread {
    /// "pull request" or "issue", for messages.
    pub fn name(self) -> &'static str {
        match self {
            Thread::PullRequest => "pull request",
            Thread::Issue => "issue",
        }
    }

    fn read(self) -> Permission {
        match self {
            Thread::PullRequest => Permission::PullRequests,
            Thread::Issue => Permission::Issues,
        }
    }

    pub fn write(self) -> Permission {
        match self {
            Thread::PullRequest => Permission::PullRequestsWrite,
            Thread::Issue => Permission::IssuesWrite,
        }
    }
}

impl IssueComment {
    pub fn author(&self) -> Option<&str> {
        self.user.as_ref().map(|u| u.login.as_str())
    }
}

impl Api {
    /// Every comment of pull request or issue `number`, oldest first:
    /// `GET /repos/{o}/{r}/issues/{n}/comments`, every page.
    pub async fn issue_comments(
        &self,
        repo: &RepoName,
        thread: Thread,
        number: u64,
    ) -> Result<Vec<IssueComment>, ApiError> {
        let what = format!("comments of {} #{number}", thread.name());
        let first = format!("/repos/{repo}/issues/{number}/comments?per_page=100");
        let pages: Vec<Vec<IssueComment>> = self
            .get_pages(first, &what, thread.read(), repo, MAX_PAGES)
            .await?;
        Ok(pages.into_iter().flatten().collect())
    }

    /// `POST /repos/{o}/{r}/issues/{n}/comments`.
    pub async fn create_comment(
        &self,
        repo: &RepoName,
        thread: Thread,
        number: u64,
        body: &str,
    ) -> Result<IssueComment, ApiError> {
        let what = format!("comment on {} #{number}", thread.name());
        let asked = Asked {
            what: &what,
            permission: thread.write(),
            repo,
        };
        let path = format!("/repos/{repo}/issues/{number}/comments");
        self.write(Write::Post, &path, &json!({ "body": body }), &asked)
            .await
    }

    /// `PATCH /repos/{o}/{r}/issues/comments/{id}`.
    pub async fn update_comment(
        &self,
        repo: &RepoName,
        thread: Thread,
        id: u64,
        body: &str,
    ) -> Result<IssueComment, ApiError> {
        let what = format!("update of comment {id}");
        let asked = Asked {
            what: &what,
            permission: thread.write(),
            repo,
        };
        let path = format!("/repos/{repo}/issues/comments/{id}");
        self.write(Write::Patch, &path, &json!({ "body": body }), &asked)
            .await
    }
}
